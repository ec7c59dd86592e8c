"""``python -m gpu_components``: the same command line as ``gpu-components``."""

from gpu_components.cli import main

main()
