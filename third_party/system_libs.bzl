"""Debian's C++ libraries under the repository names their upstream builds use.

Modelled on TensorFlow's third_party/systemlibs: a repository rule links the
system headers into the repository and writes BUILD files whose targets carry
the upstream names (@com_google_absl//absl/status, @com_google_googletest//:gtest,
...). Libraries are linked from /usr/lib/x86_64-linux-gnu or, for
--cpu=aarch64, from Debian's arm64 multiarch copies in /usr/lib/aarch64-linux-gnu.
"""

_MULTIARCH_DIRS = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu"]

_COMMON_BUILD = """
package(default_visibility = ["//visibility:public"])

config_setting(
    name = "aarch64",
    values = {"cpu": "aarch64"},
)

LIB_DIR_LINKOPTS = select({
    ":aarch64": [
        "-L/usr/lib/aarch64-linux-gnu",
        "-Wl,-rpath,/usr/lib/aarch64-linux-gnu",
    ],
    "//conditions:default": ["-L/usr/lib/x86_64-linux-gnu"],
})
"""

def _link_headers(ctx, dirs):
    for d in dirs:
        src = ctx.path("/usr/include/" + d)
        if not src.exists:
            fail("/usr/include/%s is missing: run ./bazelw, which installs the Debian packages" % d)
        ctx.symlink(src, "include/" + d)

def _library(name, hdr_dirs, libs, deps = [], extra_linkopts = [], hdr_files = []):
    return """
cc_library(
    name = "{name}",
    hdrs = glob([{globs}]),
    includes = ["include"],
    linkopts = LIB_DIR_LINKOPTS + {libs} + {extra},
    deps = {deps},
)
""".format(
        name = name,
        globs = ", ".join(['"include/%s/**"' % d for d in hdr_dirs] + ['"include/%s"' % f for f in hdr_files]),
        libs = repr(["-l" + lib for lib in libs]),
        extra = repr(extra_linkopts),
        deps = repr(deps),
    )

# Upstream absl packages and targets we expose; all resolve to one library that
# links every libabsl_*.so (Debian ships them as shared libraries, so unused
# ones cost nothing but a DT_NEEDED entry).
_ABSL_TARGETS = {
    "absl/base": ["base", "core_headers"],
    "absl/container": ["flat_hash_map", "inlined_vector"],
    "absl/flags": ["flag", "parse", "usage"],
    "absl/status": ["status", "statusor"],
    "absl/strings": ["strings", "str_format"],
    "absl/synchronization": ["synchronization"],
    "absl/time": ["time"],
    "absl/types": ["optional", "span"],
}

def _absl_libs(ctx):
    for d in _MULTIARCH_DIRS:
        if ctx.path(d).exists:
            res = ctx.execute(["sh", "-c", "cd %s && ls libabsl_*.so" % d])
            names = [f[len("lib"):-len(".so")] for f in res.stdout.strip().split("\n") if f]
            if names:
                return sorted(names)
    fail("no libabsl_*.so found: run ./bazelw, which installs libabsl-dev")

def _absl_impl(ctx):
    _link_headers(ctx, ["absl"])
    ctx.file("WORKSPACE", "workspace(name = \"com_google_absl\")\n")
    ctx.file("BUILD.bazel", _COMMON_BUILD + _library(
        "absl",
        ["absl"],
        _absl_libs(ctx),
        extra_linkopts = ["-pthread"],
    ))
    for pkg, targets in _ABSL_TARGETS.items():
        ctx.file(pkg + "/BUILD.bazel", "package(default_visibility = [\"//visibility:public\"])\n" + "".join([
            "\nalias(\n    name = \"%s\",\n    actual = \"//:absl\",\n)\n" % t
            for t in targets
        ]))

_absl_repository = repository_rule(implementation = _absl_impl, local = True)

def _googletest_impl(ctx):
    _link_headers(ctx, ["gtest", "gmock"])
    ctx.file("WORKSPACE", "workspace(name = \"com_google_googletest\")\n")
    ctx.file("BUILD.bazel", _COMMON_BUILD +
                            _library("gtest", ["gtest", "gmock"], ["gmock", "gtest"], extra_linkopts = ["-pthread"]) +
                            _library("gtest_main", [], ["gmock_main"], deps = [":gtest"]))

_googletest_repository = repository_rule(implementation = _googletest_impl, local = True)

def _benchmark_impl(ctx):
    _link_headers(ctx, ["benchmark"])
    ctx.file("WORKSPACE", "workspace(name = \"com_github_google_benchmark\")\n")
    ctx.file("BUILD.bazel", _COMMON_BUILD +
                            _library("benchmark", ["benchmark"], ["benchmark"], extra_linkopts = ["-pthread"]) +
                            _library("benchmark_main", [], ["benchmark_main"], deps = [":benchmark"]))

_benchmark_repository = repository_rule(implementation = _benchmark_impl, local = True)

def _highway_impl(ctx):
    _link_headers(ctx, ["hwy"])
    ctx.file("WORKSPACE", "workspace(name = \"com_github_google_highway\")\n")
    ctx.file("BUILD.bazel", _COMMON_BUILD +
                            _library("hwy", ["hwy"], ["hwy"]) +
                            _library("hwy_contrib", [], ["hwy_contrib"], deps = [":hwy"]))

_highway_repository = repository_rule(implementation = _highway_impl, local = True)

# oneDNN (libdnnl-dev) is optional: only //conv16b:conv16b_onednn_bench, a
# manual target, uses it, so `bazel build //...` never fetches @dnnl. Without
# the package the repository still loads (`bazel query 'deps(//...)'` works)
# and building against it fails with the install command.
_DNNL_MISSING_BUILD = """
package(default_visibility = ["//visibility:public"])

genrule(
    name = "dnnl_missing",
    outs = ["dnnl_missing.h"],
    cmd = "echo '@dnnl: /usr/include/dnnl.hpp is missing: sudo apt-get install libdnnl-dev, then ./bazelw sync --only=dnnl' >&2; exit 1",
)

cc_library(
    name = "dnnl",
    hdrs = [":dnnl_missing"],
)
"""

def _dnnl_impl(ctx):
    ctx.file("WORKSPACE", "workspace(name = \"dnnl\")\n")
    if not ctx.path("/usr/include/dnnl.hpp").exists or not ctx.path("/usr/include/oneapi/dnnl").exists:
        ctx.file("BUILD.bazel", _DNNL_MISSING_BUILD)
        return
    _link_headers(ctx, ["oneapi/dnnl"])
    for f in ctx.path("/usr/include").readdir():
        if f.basename.startswith("dnnl"):
            ctx.symlink(f, "include/" + f.basename)
    ctx.file("BUILD.bazel", _COMMON_BUILD + _library(
        "dnnl",
        ["oneapi"],
        ["dnnl"],
        extra_linkopts = ["-pthread"],
        hdr_files = ["dnnl*"],
    ))

_dnnl_repository = repository_rule(implementation = _dnnl_impl, local = True)

def synops_system_libs():
    """Defines the system-library repositories unless already defined (@dnnl is optional)."""
    if not native.existing_rule("com_google_absl"):
        _absl_repository(name = "com_google_absl")
    if not native.existing_rule("com_google_googletest"):
        _googletest_repository(name = "com_google_googletest")
    if not native.existing_rule("com_github_google_benchmark"):
        _benchmark_repository(name = "com_github_google_benchmark")
    if not native.existing_rule("com_github_google_highway"):
        _highway_repository(name = "com_github_google_highway")
    if not native.existing_rule("dnnl"):
        _dnnl_repository(name = "dnnl")
