"""Shipped model bundles (installed as the data package `studio_assets`)."""
