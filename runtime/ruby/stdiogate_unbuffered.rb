# SPDX-License-Identifier: MIT
# Loaded into a Ruby server by stdiogate --gate-only, through the RUBYOPT the
# library's getenv answers in that process alone (lib/interpreters.c):
# STDOUT is written at once, so that what the server prints while it starts
# reaches the diversion instead of waiting in Ruby's buffer and reaching the
# wire, which nothing guards then, with its first answer.
STDOUT.sync = true
