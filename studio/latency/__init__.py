"""Latency benchmarks across runtimes (`studio bench`)."""
