#!/usr/bin/env python3
"""Renders a terminal capture with ANSI colours (`tmux capture-pane -p -e`)
to a PNG, cell by cell, in DejaVu Sans Mono (DejaVu Sans for the glyphs the
monospace face lacks, such as Braille), as a terminal's font fallback would.

    ansi2png.py capture.ans out.png
"""
import re
import sys

from fontTools.ttLib import TTFont
from PIL import Image, ImageDraw, ImageFont

FONT_DIR = "/usr/share/fonts/truetype/dejavu/"
SIZE = 15
DEFAULT_FG = (208, 208, 208)
DEFAULT_BG = (22, 24, 30)

BASE16 = [
    (0, 0, 0), (205, 49, 49), (13, 188, 121), (229, 229, 16),
    (36, 114, 200), (188, 63, 188), (17, 168, 205), (229, 229, 229),
    (102, 102, 102), (241, 76, 76), (35, 209, 139), (245, 245, 67),
    (59, 142, 234), (214, 112, 214), (41, 184, 219), (255, 255, 255),
]


def xterm(n):
    if n < 16:
        return BASE16[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    v = 8 + (n - 232) * 10
    return (v, v, v)


class Style:
    def __init__(self):
        self.reset()

    def reset(self):
        self.fg = None
        self.bg = None
        self.bold = False
        self.dim = False
        self.italic = False
        self.underline = False
        self.reverse = False
        self.strike = False

    def copy(self):
        s = Style()
        s.__dict__.update(self.__dict__)
        return s


def apply_sgr(style, params):
    codes = [int(p) if p else 0 for p in params.split(";")] if params else [0]
    i = 0
    while i < len(codes):
        c = codes[i]
        if c == 0:
            style.reset()
        elif c == 1:
            style.bold = True
        elif c == 2:
            style.dim = True
        elif c == 3:
            style.italic = True
        elif c == 4:
            style.underline = True
        elif c == 7:
            style.reverse = True
        elif c == 9:
            style.strike = True
        elif c == 22:
            style.bold = style.dim = False
        elif c == 23:
            style.italic = False
        elif c == 24:
            style.underline = False
        elif c == 27:
            style.reverse = False
        elif c == 29:
            style.strike = False
        elif 30 <= c <= 37:
            style.fg = BASE16[c - 30]
        elif 90 <= c <= 97:
            style.fg = BASE16[c - 90 + 8]
        elif 40 <= c <= 47:
            style.bg = BASE16[c - 40]
        elif 100 <= c <= 107:
            style.bg = BASE16[c - 100 + 8]
        elif c == 39:
            style.fg = None
        elif c == 49:
            style.bg = None
        elif c in (38, 48) and i + 1 < len(codes):
            if codes[i + 1] == 5 and i + 2 < len(codes):
                color = xterm(codes[i + 2])
                i += 2
            elif codes[i + 1] == 2 and i + 4 < len(codes):
                color = tuple(codes[i + 2:i + 5])
                i += 4
            else:
                color = None
            if c == 38:
                style.fg = color
            else:
                style.bg = color
        i += 1


def parse(text):
    rows = []
    style = Style()
    for line in text.split("\n"):
        cells = []
        for m in re.finditer(r"\x1b\[([0-9;]*)m|([^\x1b])", line):
            if m.group(1) is not None:
                apply_sgr(style, m.group(1))
            else:
                cells.append((m.group(2), style.copy()))
        rows.append(cells)
    while rows and not rows[-1]:
        rows.pop()
    return rows


class Face:
    def __init__(self, name):
        self.font = ImageFont.truetype(FONT_DIR + name, SIZE)
        self.cmap = TTFont(FONT_DIR + name).getBestCmap()

    def has(self, char):
        return ord(char) in self.cmap


def render(rows, out, width=None):
    faces = {
        "regular": Face("DejaVuSansMono.ttf"),
        "bold": Face("DejaVuSansMono-Bold.ttf"),
        "italic": Face("DejaVuSansMono-Oblique.ttf"),
    }
    fallback = Face("DejaVuSans.ttf")
    regular = faces["regular"].font

    def pick(char, s):
        want = faces["bold" if s.bold else "italic" if s.italic else "regular"]
        for face in (want, faces["regular"], fallback):
            if face.has(char):
                return face.font
        return regular

    cw = int(round(regular.getlength("M")))
    ch = int(SIZE * 1.32)
    cols = width or max(len(r) for r in rows)
    pad = 12
    img = Image.new("RGB", (cols * cw + 2 * pad, len(rows) * ch + 2 * pad), DEFAULT_BG)
    draw = ImageDraw.Draw(img)
    for y, cells in enumerate(rows):
        for x, (char, s) in enumerate(cells):
            fg = s.fg or DEFAULT_FG
            bg = s.bg
            if s.reverse:
                fg, bg = (bg or DEFAULT_BG), (s.fg or DEFAULT_FG)
            if s.dim:
                fg = tuple(int(c * 0.55 + b * 0.45) for c, b in zip(fg, bg or DEFAULT_BG))
            px, py = pad + x * cw, pad + y * ch
            if bg:
                draw.rectangle([px, py, px + cw - 1, py + ch - 1], fill=bg)
            if char != " ":
                draw.text((px, py + 1), char, font=pick(char, s), fill=fg)
            if s.underline:
                draw.line([px, py + ch - 2, px + cw - 1, py + ch - 2], fill=fg)
            if s.strike:
                draw.line([px, py + ch // 2, px + cw - 1, py + ch // 2], fill=fg)
    img.save(out, optimize=True)


if __name__ == "__main__":
    text = open(sys.argv[1], encoding="utf-8").read()
    render(parse(text), sys.argv[2])
