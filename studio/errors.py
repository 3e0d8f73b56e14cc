"""Errors a user can act on. Each message names the file (and line) at fault and, where one exists,
the command that fixes it, so the CLI and the UI can show it as-is instead of a traceback."""


class StudioError(Exception):
    """Base class for errors whose message is meant for the user."""


class DataError(StudioError):
    """A data file is missing, malformed or undecodable."""

    def __init__(self, path, message: str, line: int | None = None):
        where = f"{path}:{line}" if line is not None else f"{path}"
        super().__init__(f"{where}: {message}")
        self.path = str(path)
        self.line = line


class BundleError(StudioError):
    """A model bundle (or one of its files) is missing or corrupted."""

    def __init__(self, path, message: str, rebuild: str | None = None):
        text = f"{path}: {message}"
        if rebuild:
            text += f"\n  Rebuild it with: {rebuild}"
        super().__init__(text)
        self.path = str(path)
        self.rebuild = rebuild
