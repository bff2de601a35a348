# SPDX-License-Identifier: MIT
"""python -m uriscan: the uriscan command, as the console script runs it."""
from _uriscan_command import main

main()
