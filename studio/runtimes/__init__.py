"""Backends behind one protocol (`encode`, `step`, `name`). Registry by name."""

from studio.runtimes.base import Runtime


def create_runtime(name: str, model) -> Runtime:
    from studio.runtimes.tf_runtime import TFCachedRuntime, TFNaiveRuntime

    runtimes = {"tf": TFCachedRuntime, "tf-naive": TFNaiveRuntime}
    if name not in runtimes:
        raise ValueError(f"unknown backend {name!r}; available: {', '.join(runtimes)}")
    return runtimes[name](model)


__all__ = ["Runtime", "create_runtime"]
