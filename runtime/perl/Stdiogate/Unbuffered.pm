# SPDX-License-Identifier: MIT
# Stdiogate::Unbuffered - loaded into Perl programs by stdiogate, through
# PERL5OPT, as PYTHONUNBUFFERED=1 does for Python: STDOUT is written at
# once, so that what a server prints while it starts reaches the diversion
# instead of waiting in PerlIO's buffer and reaching the wire with its first
# answer.  Nothing else: no module is loaded, no symbol exported.
package Stdiogate::Unbuffered;
select((select(STDOUT), $| = 1)[0]);
1;
