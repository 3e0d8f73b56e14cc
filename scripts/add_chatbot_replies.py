"""Give a chatbot bundle trained on ChatbotData its stored replies (`replies.npz`, `studio.replies`): the retrieval
index over the training side of the bundle's own split, the pairs as written. Bundles trained by the app since
stored replies came have them already; this is for older ones (the shipped chatbot's was made with it):

    .venv/bin/python scripts/add_chatbot_replies.py assets/chatbot --data-dir ../shared/data

checksums.json is updated; the model card is left as it is.
"""

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from studio.bundle import load_bundle  # noqa: E402
from studio.data.sources import chatbot_split  # noqa: E402
from studio.files import atomic_write_bytes, sha256_of  # noqa: E402
from studio.replies import REPLIES_FILE, build_replies  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundle", type=Path)
    parser.add_argument("--data-dir", type=Path, help="the folder holding chatbot/ChatbotData.csv")
    args = parser.parse_args()
    bundle = load_bundle(args.bundle)
    train, held_out = chatbot_split(args.data_dir, bundle.config)
    index = build_replies(train)
    index.save(args.bundle / REPLIES_FILE)
    checksums_path = args.bundle / "checksums.json"
    checksums = json.loads(checksums_path.read_text(encoding="utf-8"))
    checksums[REPLIES_FILE] = sha256_of(args.bundle / REPLIES_FILE)
    atomic_write_bytes(checksums_path, (json.dumps(checksums, indent=2) + "\n").encode())
    size = (args.bundle / REPLIES_FILE).stat().st_size
    print(f"{args.bundle / REPLIES_FILE}: {len(index.questions):,} training pairs ({len(held_out):,} held out), "
          f"{len(index.vocabulary):,} terms, {size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
