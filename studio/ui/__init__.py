"""The Gradio app behind `studio launch`."""
