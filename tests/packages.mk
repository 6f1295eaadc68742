# SPDX-License-Identifier: MIT
# tests/packages.bats installs the wheel and the npm packages (make packages, pkg/pkg.mk) with
# the pip and uv of make sdk-python and the npm of TEST_TOOLS.
TEST_DEPS += packages pkg-aarch64-server sdk-python
