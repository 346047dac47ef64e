r"""How label names are shown: always quoted, with escapes, so that every name is readable.

Token names are often whitespace (``"\n"``, ``" "``), begin with a space (``" the"``), or
hold control and format characters. The text report, the JSON key ``labels_shown`` and
the HTML report show a name as :func:`show_name` writes it:

* the name between double quotes, always (so a leading or trailing space is visible);
* ``\`` and ``"`` written ``\\`` and ``\"``; newline, tab and carriage return written
  ``\n``, ``\t``, ``\r``;
* every other character that is not printable (Python's ``str.isprintable``: control
  characters, format characters such as U+200B ZERO WIDTH SPACE or the bidirectional
  overrides, separators other than the ASCII space, surrogates, private-use and
  unassigned code points) written ``\xHH`` (below U+0100), ``\uHHHH`` or ``\UHHHHHHHH``;
* every printable character as it is: the byte-level tokens of GPT-2 style
  tokenizers keep their ``Ġ`` (U+0120) and ``Ċ``, SentencePiece tokens their ``▁``.

The rule is that of Python's ``repr`` of a string with double quotes, so
``ast.literal_eval(show_name(s)) == s`` for every string ``s``. The JSON key ``labels``
keeps the names themselves.
"""

from __future__ import annotations

__all__ = ["show_name"]

_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def show_name(name: str) -> str:
    """``name`` quoted and escaped as described in the module docstring."""
    if name.isprintable() and '"' not in name and "\\" not in name:
        return f'"{name}"'  # the common case, fast
    out = ['"']
    for ch in name:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ch.isprintable():
            out.append(ch)
        else:
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else
                       f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    out.append('"')
    return "".join(out)
