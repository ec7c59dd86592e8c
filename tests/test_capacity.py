"""Pool capacity is core knowledge: the example program builds each pool's record without the offline plan."""

from __future__ import annotations

import json
import subprocess
import sys


def test_the_program_and_the_capacity_record_import_nothing_of_the_plan() -> None:
    probe = (
        "import json, sys\n"
        "import gpu_components.capacity, gpu_components.program\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('gpu_components.plan'))))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
