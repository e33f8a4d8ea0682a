# SPDX-License-Identifier: LGPL-2.1-or-later
# fish completion for ringfence installed as bwrap: bwrap's command line, from ringfence.fish
# (installed beside this file).
source (status dirname)/ringfence.fish
__ringfence_bwrap_complete bwrap '__ringfence_bwrap_options_allowed bwrap'
