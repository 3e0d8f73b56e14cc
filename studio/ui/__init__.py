"""The Gradio app behind `studio launch`.

The server calls no one: Gradio's analytics (a version check and usage reports to its servers and Hugging Face's)
are off before Gradio is imported by any module of this package; tests/system/test_privacy.py holds it to that."""

import os

os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
os.environ["HF_HUB_DISABLE_TELEMETRY"] = "1"
