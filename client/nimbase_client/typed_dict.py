"""The `TypedDict` every answer record is declared with (`records`, and the generated `v1.kind_records`):
typing_extensions' when it is there, since pydantic reads only its `TypedDict` on Python 3.11; else
typing's, which is the same at run time. So the records need nothing but the standard library."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import TypedDict
else:
    try:
        from typing_extensions import TypedDict
    except ImportError:  # a client without typing_extensions: typing's is the same at run time
        from typing import TypedDict

__all__ = ["TypedDict"]
