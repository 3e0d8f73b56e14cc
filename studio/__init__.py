"""Transformer Studio: a Korean chatbot and a Korean→English translator built on one Transformer."""

__version__ = "0.1.0"
