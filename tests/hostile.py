"""A generated set of hostile inputs (several hundred), by category. Deterministic: the same list every run."""

from __future__ import annotations

import random
import re

KOREAN = ["영화 볼래?", "오바마는 대통령이다.", "커피는 필요 없다.", "시민들은 도시 속에 산다."]

_BASE = {
    "empty": ["", " ", "\t", "\n", "\r\n", "   \n\t  ", "\u3000", "\u200b", "\u00a0\u00a0", "\ufeff"],
    "emoji": ["😀", "🙂🙃😉" * 5, "👩‍👩‍👧‍👦", "🇰🇷🇺🇸", "❤️" * 50, "🔥 불이야 🔥", "🤖🤖🤖?", "⌚️⏰", "🏳️‍🌈", "😀" * 500],
    "control": ["\x00", "안녕\x00하세요", "\x07\x08\x1b[31mred\x1b[0m", "\x7f" * 10, "\x1b]0;title\x07",
                "줄\r바꿈", "탭\t\t탭", "\x0b\x0c", "\u0085next", "\u2028\u2029", "\x01\x02\x03 커피", "\x00" * 100],
    "surrogates_and_odd_unicode": ["\ud800", "\udfff", "안녕\udcff", "\ud83d", "a\ud800b\udc00c", "\ufffd" * 5,
                                   "\U0010ffff", "\ue000\uf8ff", "가\u0301\u0302\u0303" * 10, "Z̸̢͖̓a̷̠͗l̵͚̈́g̴̙̋o̵̘̊",
                                   "\u1100\u1161\u11a8", "ᄀᄁᄂ"],
    "mixed_scripts": ["오바마는 Obama 대통령 президент 总统 です", "こんにちは、世界", "你好世界", "Привет мир",
                      "नमस्ते दुनिया", "สวัสดีชาวโลก", "Γειά σου κόσμε", "안녕 hello 你好 مرحبا"],
    "right_to_left": ["مرحبا بالعالم", "שלום עולם", "\u202eevil\u202c", "abc\u202edcba\u202c 커피", "\u200f\u200e",
                      "مرحبا 안녕 שלום"],
    "html_js": ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "<svg onload=alert(1)>",
                "\"><script>alert(document.cookie)</script>", "<iframe src=javascript:alert(1)>",
                "javascript:alert(1)", "<a href='javascript:alert(1)'>클릭</a>", "&lt;script&gt;&amp;",
                "<b>굵게</b> <i>기울임</i>", "</textarea><script>x()</script>", "{{7*7}} ${7*7} <%= 7*7 %>"],
    "markdown": ["# 제목", "**굵게** _기울임_", "[link](javascript:alert(1))", "![img](http://example.com/x.png)",
                 "```\ncode\n```", "| a | b |\n|---|---|\n| 1 | 2 |", "> 인용", "- 목록\n- 목록", "$$x^2$$",
                 "<details><summary>x</summary>y</details>"],
    "sql_and_shell": ["'; DROP TABLE users; --", "1 OR 1=1", "\" OR \"\"=\"", "admin'--", "$(rm -rf /)",
                      "`reboot`", "; cat /etc/passwd", "../../../../etc/passwd", "%00%2e%2e%2f", "%s%s%s%n",
                      "{0.__class__}", "__import__('os').system('id')"],
    "long_words": ["가" * 5000, "a" * 10000, "안녕하세요" * 1000, "x" * 100_000, "https://example.com/" + "a" * 3000,
                   "ㅋ" * 2000, "1" * 5000, "." * 3000, "?!" * 2000],
    "numbers": ["0", "-1", "3.14159", "1e308", "NaN", "Infinity", "12345678901234567890", "0x1F", "٣٤٥", "一二三"],
    "long_text": ["오바마는 대통령이다. " * 300, "\n".join(["커피는 필요 없다."] * 100), " ".join(KOREAN) * 50,
                  "가 나 다 라 " * 12_500],  # the last is 100,000 characters
}


def hostile_inputs(minimum: int = 300) -> list[tuple[str, str]]:
    """(category, text) pairs: the base cases, then each mixed with normal Korean text in a few ways."""
    rng = random.Random(6)
    cases = [(category, text) for category, texts in _BASE.items() for text in texts]
    everything = [text for _, text in cases]
    while len(cases) < minimum:
        a, b, korean = rng.choice(everything), rng.choice(everything), rng.choice(KOREAN)
        kind = rng.choice(["prefix", "suffix", "sandwich", "pair"])
        text = {"prefix": a[:200] + korean, "suffix": korean + a[:200], "sandwich": a[:50] + korean + a[:50],
                "pair": a[:100] + b[:100]}[kind]
        cases.append((f"mixed-{kind}", text))
    return cases


def hostile_files() -> dict[str, bytes]:
    """Files a user might upload to the file translator by mistake (name -> content)."""
    return {
        "empty.txt": b"",
        "blank_lines.txt": b"\n\n  \n\t\n",
        "binary.txt": bytes(range(256)) * 8,
        "png_renamed.txt": b"\x89PNG\r\n\x1a\n" + b"\x00" * 100,
        "latin1.txt": "caf\u00e9 na\u00efve".encode("latin-1"),
        "utf16.txt": "커피는 필요 없다.".encode("utf-16"),
        "euc_kr.txt": "커피는 필요 없다.".encode("euc-kr"),
        "bom_utf8.txt": "\ufeff커피는 필요 없다.\n".encode("utf-8"),
        "crlf.txt": "커피는 필요 없다.\r\n\r\n오바마는 대통령이다.\r\n".encode("utf-8"),
        "too_many_lines.txt": ("가\n" * 6000).encode("utf-8"),
        "huge.txt": ("오바마는 대통령이다.\n" * 120_000).encode("utf-8"),
        "script.txt": b"<script>alert(1)</script>\n#!/bin/sh\nrm -rf /\n",
        "one_long_line.txt": ("커피는 필요 없다 " * 200).encode("utf-8"),
    }


# what the hostile-input tests send and accept
INPUTS = hostile_inputs(300)
BASE_INPUTS = hostile_inputs(0)  # the cases themselves, without their mixes with Korean text
FILE_SETTINGS = ["greedy", 4, 1.0, 0.8, 0, 0.9, None, 64, 0]  # the Translate tab's decoding controls
GENERIC_ERROR = "has not enabled verbose error reporting"  # what Gradio says for an unexpected exception
CLEAR_MESSAGES = re.compile(r"type something|Korean text to translate|the limit is|nothing the model can read|nothing to read|"
                            r"Unknown backend|Invalid decoding settings|not valid UTF-8|NUL bytes|no text to translate|"
                            r"Please choose|exceeds the maximum file size|not a \.\w+ file|cannot translate|no text|"
                            r"broken markup|not a zip|Word document")
