"""Put the PDF's CJK font into the Lambda layer build (Lambda images carry no CJK font).

    python -m prhub.render.fonts [DEST_DIR]     (make build runs it after sam build)

Extracts the Simplified Chinese face of Debian's Noto Sans CJK collection into
DEST_DIR/NotoSansCJKsc-Regular.otf, where render.pdf looks for it before the
system font. See docs/pdf-fonts.md for why the font comes from Debian.
"""
from __future__ import annotations

import sys
from pathlib import Path

from prhub.render.pdf import DEBIAN_FONT, PACKAGED_FONT

LAYER_FONTS = Path(".aws-sam/build/PrhubLayer/python/prhub/fonts")


def extract(source: str = DEBIAN_FONT, dest_dir: Path = LAYER_FONTS) -> Path:
    """Write one face of a font collection ("path#face") as a standalone font file; returns its path."""
    from fontTools.ttLib import TTCollection, TTFont

    path, _, face = source.partition("#")
    target = dest_dir / PACKAGED_FONT.name
    target.parent.mkdir(parents=True, exist_ok=True)
    if path.lower().endswith((".ttc", ".otc")):
        collection = TTCollection(path, lazy=True)
        try:
            collection.fonts[int(face or 0)].save(target)
        finally:
            collection.close()
    else:
        with TTFont(path, lazy=True) as font:
            font.save(target)
    return target


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    dest = Path(args[0]) if args else LAYER_FONTS
    if not Path(DEBIAN_FONT.partition("#")[0]).is_file():
        print(f"{DEBIAN_FONT} is missing: run scripts/system-deps.sh fonts", file=sys.stderr)
        return 1
    target = extract(DEBIAN_FONT, dest)
    print(f"wrote {target} ({target.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
