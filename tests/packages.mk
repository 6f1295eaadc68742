# SPDX-License-Identifier: MIT
# tests/package/packages.bats installs the wheel and the npm packages (make packages, pkg/pkg.mk) with
# the pip and uv of make sdk-python and the npm of TEST_TOOLS.
# tests/package/aarch64.bats runs the aarch64 ones under qemu-user.  tests/package/packages.bats also builds
# the .deb and runs lintian on it (make deb-build, packaging.mk), with these tools.
TEST_TOOLS += qemu-aarch64-static:qemu-user-static $(DEB_TOOLS)
TEST_DEPS += packages pkg-aarch64-server sdk-python
