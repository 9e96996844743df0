"""The text of an imported CSV file: UTF-8, UTF-8 with a BOM or cp932, detected honestly, never guessed.

Detection, when no encoding is given:
1. A UTF-8 BOM: the rest must be UTF-8.
2. Bytes that are valid UTF-8: UTF-8.
3. Bytes that are valid cp932 *and* read as Japanese text: cp932. Japanese text means every character beyond
   ASCII is one of JIS X 0208 (what Shift_JIS encodes: no half-width katakana, no vendor extensions, no private
   use area), and at least one is a kana or a first-level kanji. Latin-1 or cp1252 text read as cp932 gives
   half-width katakana (bytes A1-DF), private-use or extension characters (F0-FC) or second-level kanji only
   (E0-EA: "épée" reads as 駱馥), so it is refused, not garbled.
4. Anything else is refused, naming the first line that is not UTF-8.
"""

ENCODINGS = ("utf-8", "utf-8-sig", "cp932")
_BOM = b"\xef\xbb\xbf"
_HALF_WIDTH_KATAKANA = range(0xFF61, 0xFFA0)
_KANA = range(0x3041, 0x3100)
_FIRST_LEVEL_KANJI_LEAD_BYTES = range(0x88, 0x99)  # Shift_JIS 889F..9872; 9873.. is the second level


class EncodingRejected(ValueError):
    """The bytes are not text in an encoding benchdash reads; the message names the line."""


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _strict_decode(data: bytes, encoding: str) -> str:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as error:
        byte = data[error.start : error.start + 1].hex()
        raise EncodingRejected(
            f"line {_line_of(data, error.start)}: cannot be read as {encoding} (byte 0x{byte})"
        ) from error


def _is_japanese_character(character: str) -> bool:
    if ord(character) in _HALF_WIDTH_KATAKANA:
        return False
    try:
        character.encode("shift_jis")
    except UnicodeEncodeError:
        return False
    return True


def _is_kana_or_first_level_kanji(character: str) -> bool:
    return ord(character) in _KANA or character.encode("shift_jis")[0] in _FIRST_LEVEL_KANJI_LEAD_BYTES


def reads_as_japanese(text: str) -> bool:
    """Whether text decoded from cp932 is Japanese (step 3 of the module's rule) rather than misread Latin-1."""
    beyond_ascii = [character for character in text if not character.isascii()]
    if not all(_is_japanese_character(character) for character in beyond_ascii):
        return False
    return any(_is_kana_or_first_level_kanji(character) for character in beyond_ascii)


def _detected_text(data: bytes) -> str:
    if data.startswith(_BOM):
        return _strict_decode(data, "utf-8-sig")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        not_utf8 = error
    try:
        text = data.decode("cp932")
    except UnicodeDecodeError:
        text = ""
    if text and reads_as_japanese(text):
        return text
    byte = data[not_utf8.start : not_utf8.start + 1].hex()
    raise EncodingRejected(
        f"line {_line_of(data, not_utf8.start)}: not UTF-8 (byte 0x{byte}), and the file does not read as "
        "Japanese cp932 text either: it is neither UTF-8, UTF-8 with a BOM nor cp932, and benchdash does not "
        "guess another encoding (save it as UTF-8; if it is cp932 after all, give --encoding cp932)"
    )


def decode_csv_bytes(data: bytes, encoding: str | None = None) -> str:
    """Text of a CSV file in the encoding given (one of ENCODINGS), or detected by the module's rule."""
    if encoding is None:
        return _detected_text(data)
    if encoding not in ENCODINGS:
        raise EncodingRejected(f"benchdash reads {', '.join(ENCODINGS)}, not {encoding}")
    return _strict_decode(data, encoding)
