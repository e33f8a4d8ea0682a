// SPDX-License-Identifier: LGPL-2.1-or-later
// The one main() shared by the unit-test executables.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
