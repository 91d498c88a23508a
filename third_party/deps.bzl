"""The one macro a WORKSPACE calls to get everything synops depends on."""

load("//third_party:shims.bzl", "synops_bazel_shims")
load("//third_party:system_libs.bzl", "synops_system_libs")

def synops_dependencies():
    """Offline shims for Bazel 4.2.3 plus Debian's Abseil, GoogleTest, Benchmark, Highway (and optional oneDNN)."""
    synops_bazel_shims()
    synops_system_libs()
