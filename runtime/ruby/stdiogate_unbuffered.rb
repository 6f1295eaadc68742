# SPDX-License-Identifier: MIT
# Loaded into Ruby programs by stdiogate, through RUBYOPT, as
# PYTHONUNBUFFERED=1 does for Python: STDOUT is written at once, so that
# what a server prints while it starts reaches the diversion instead of
# waiting in Ruby's buffer and reaching the wire with its first answer.
STDOUT.sync = true
