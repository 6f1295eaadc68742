# SPDX-License-Identifier: MIT
# Stdiogate::Unbuffered - loaded into a Perl server by stdiogate --gate-only,
# through the PERL5OPT the library's getenv answers in that process alone
# (lib/interpreters.c): STDOUT is written at once, so that what the server
# prints while it starts reaches the diversion instead of waiting in
# PerlIO's buffer and reaching the wire, which nothing guards then, with its
# first answer.  Nothing else: no module is loaded, no symbol exported.
package Stdiogate::Unbuffered;
select((select(STDOUT), $| = 1)[0]);
1;
