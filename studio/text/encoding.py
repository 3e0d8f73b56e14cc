"""Bytes to text, for every file the app reads (documents, glossaries, training data) and the lines piped to the
`studio` command: UTF-8, or Korean in the legacy CP949 encoding, with a message naming the line when neither reads."""

from __future__ import annotations

from studio.errors import DataError

BOM = b"\xef\xbb\xbf"
_MAGIC = {b"PK\x03\x04": "a ZIP archive (a .docx or another Office file?)", b"%PDF": "a PDF document",
          b"\x89PNG": "a PNG image", b"\xff\xd8\xff": "a JPEG image", b"\xd0\xcf\x11\xe0": "an old Office document"}


def decode_text(name: str, data: bytes, what: str) -> tuple[str, bool, str]:
    """(text, had a UTF-8 BOM, a note for the user or ""). UTF-8, or else CP949 (EUC-KR's superset, the legacy
    Korean encoding many files still use) when all of it decodes so and reads as Korean: the note then says the
    result is written as UTF-8. DataError naming the line for undecodable bytes or binary content, and saying
    what the file looks like when it is a known binary format. `what`: e.g. "a .txt file"."""
    for magic, looks_like in _MAGIC.items():
        if data.startswith(magic):
            raise DataError(name, f"is {looks_like}, not {what}")
    bom = data.startswith(BOM)
    raw = data[len(BOM):] if bom else data
    note = ""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        text = None if bom else _legacy_korean(raw)  # a UTF-8 BOM says what the file is
        if text is None:
            line = raw[: error.start].count(b"\n") + 1
            legacy = "" if bom else ", nor Korean in CP949/EUC-KR"
            raise DataError(name, f"not valid UTF-8 (byte 0x{raw[error.start]:02x}){legacy}; save the file as UTF-8",
                            line) from None
        note = f"{name}: read as CP949 (EUC-KR), the legacy Korean encoding; the translation is written as UTF-8"
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        raise DataError(name, "contains NUL bytes: this looks like a binary file, not text", line)
    return text, bom, note


class PipeDecoder:
    """The lines of a pipe (`studio chat` / `studio translate` reading stdin), which are never refused (the lines
    after a bad one still come): `decoder(data, number)` gives (text, a note for the user or "") for line `number`:
    UTF-8; else Korean in CP949 (EUC-KR) when the line reads so (noted once for the pipe); else UTF-8 with each
    unreadable byte shown as U+FFFD, and a note naming the line."""

    def __init__(self, name: str):
        self.name, self.korean_noted = name, False

    def __call__(self, data: bytes, number: int) -> tuple[str, str]:
        try:
            return data.decode("utf-8"), ""
        except UnicodeDecodeError as error:
            korean = _legacy_korean(data)
            if korean is not None:
                noted, self.korean_noted = self.korean_noted, True
                return korean, "" if noted else (f"{self.name} line {number}: read as CP949 (EUC-KR), the legacy "
                                                 "Korean encoding (and so are the lines after it that are)")
            return data.decode("utf-8", "replace"), (
                f"{self.name} line {number}: not valid UTF-8 (byte 0x{data[error.start]:02x}), nor Korean in "
                "CP949/EUC-KR: its unreadable bytes became U+FFFD (�)")


def _legacy_korean(raw: bytes) -> str | None:
    """`raw` as CP949 when it decodes so and most of what is not ASCII is Hangul (Latin-1 bytes can decode as
    CP949 too, into Hanja and symbols)."""
    try:
        text = raw.decode("cp949")
    except UnicodeDecodeError:
        return None
    wide = [c for c in text if ord(c) > 0x7F]
    return text if wide and sum(map(_common_hangul, wide)) >= 0.5 * len(wide) else None


def _common_hangul(character: str) -> bool:
    """One of the 2,350 syllables EUC-KR has (Latin-1 "Är" decodes in CP949 to 훣, one of the others)."""
    if not "\uac00" <= character <= "\ud7a3":
        return False
    try:
        return len(character.encode("euc-kr")) == 2  # the others are written as 8 bytes of jamo
    except UnicodeEncodeError:
        return False
