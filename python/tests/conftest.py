"""What the Python tests share: whether this machine has what the build needs for
each delegate, so a test skips only where the delegate cannot have been built and
fails where it should have been (a skip on "the backend is missing" could hide a
build or registration that broke)."""
import glob
import os
import shutil


def xnnpack_expected() -> bool:
    """The build makes the XNNPACK delegate wherever Debian's libxnnpack-dev is installed."""
    return os.path.exists("/usr/include/xnnpack.h") and bool(
        glob.glob("/usr/lib/*/libXNNPACK.*") + glob.glob("/usr/lib/libXNNPACK.*"))


def vulkan_expected(icd: str) -> bool:
    """The build makes the Vulkan delegate wherever glslc and libvulkan-dev are installed;
    the tests also need Mesa's lavapipe driver."""
    return shutil.which("glslc") is not None and os.path.exists(icd)
