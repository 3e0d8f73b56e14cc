"""What the app hands out (downloads, exports) lives in folders removed when the process exits."""

import subprocess
import sys
from pathlib import Path


def test_a_session_folder_is_there_while_the_process_runs_and_gone_after():
    program = ("from studio.files import session_folder; f = session_folder('studio-test-'); "
               "(f / 'out.txt').write_text('x'); print(f, (f / 'out.txt').is_file())")
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60,
                            cwd=Path(__file__).resolve().parents[2])
    folder, existed = result.stdout.split()
    assert result.returncode == 0 and existed == "True" and "studio-test-" in folder
    assert not Path(folder).exists()
