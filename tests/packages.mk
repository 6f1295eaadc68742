# SPDX-License-Identifier: MIT
# tests/packages.bats installs the wheel and the npm packages (make packages, pkg/pkg.mk) with
# the pip and uv of make sdk-python and the npm of TEST_TOOLS.
# tests/aarch64.bats runs the aarch64 ones under qemu-user.
TEST_TOOLS += qemu-aarch64-static:qemu-user-static
TEST_DEPS += packages pkg-aarch64-server sdk-python
