"""Local stand-ins for the repositories Bazel 4.2.3 would otherwise download.

Bazel's built-in WORKSPACE suffix refers to @rules_cc, @rules_java and
@remote_coverage_tools. Defining them here (as generated repositories, so no
path is needed and a consumer workspace can define them too) lets every build
run offline.
"""

def _rules_cc_shim_impl(ctx):
    ctx.file("WORKSPACE", "workspace(name = \"rules_cc\")\n")
    ctx.file("BUILD.bazel", "")
    ctx.file("cc/BUILD.bazel", "")
    ctx.file("cc/defs.bzl", """\"\"\"Re-exports the native C++ rules (offline shim).\"\"\"

def cc_binary(**attrs):
    native.cc_binary(**attrs)

def cc_import(**attrs):
    native.cc_import(**attrs)

def cc_library(**attrs):
    native.cc_library(**attrs)

def cc_proto_library(**attrs):
    native.cc_proto_library(**attrs)

def cc_test(**attrs):
    native.cc_test(**attrs)

def cc_toolchain(**attrs):
    native.cc_toolchain(**attrs)

def cc_toolchain_suite(**attrs):
    native.cc_toolchain_suite(**attrs)

def fdo_prefetch_hints(**attrs):
    native.fdo_prefetch_hints(**attrs)

def fdo_profile(**attrs):
    native.fdo_profile(**attrs)

def objc_import(**attrs):
    native.objc_import(**attrs)

def objc_library(**attrs):
    native.objc_library(**attrs)
""")

_rules_cc_shim = repository_rule(implementation = _rules_cc_shim_impl)

def _rules_java_shim_impl(ctx):
    ctx.file("WORKSPACE", "workspace(name = \"rules_java\")\n")
    ctx.file("BUILD.bazel", "")
    ctx.file("java/BUILD.bazel", "")
    ctx.file("java/defs.bzl", """\"\"\"Re-exports the native Java rules (offline shim).\"\"\"

def java_binary(**attrs):
    native.java_binary(**attrs)

def java_import(**attrs):
    native.java_import(**attrs)

def java_library(**attrs):
    native.java_library(**attrs)

def java_plugin(**attrs):
    native.java_plugin(**attrs)

def java_test(**attrs):
    native.java_test(**attrs)

def java_package_configuration(**attrs):
    native.java_package_configuration(**attrs)

def java_runtime(**attrs):
    native.java_runtime(**attrs)

def java_toolchain(**attrs):
    native.java_toolchain(**attrs)
""")

_rules_java_shim = repository_rule(implementation = _rules_java_shim_impl)

def _remote_coverage_tools_shim_impl(ctx):
    ctx.file("WORKSPACE", "workspace(name = \"remote_coverage_tools\")\n")
    ctx.file("BUILD.bazel", """package(default_visibility = ["//visibility:public"])

filegroup(name = "coverage_report_generator")

filegroup(name = "lcov_merger")
""")

_remote_coverage_tools_shim = repository_rule(implementation = _remote_coverage_tools_shim_impl)

def synops_bazel_shims():
    """Defines @rules_cc, @rules_java and @remote_coverage_tools locally."""
    if not native.existing_rule("rules_cc"):
        _rules_cc_shim(name = "rules_cc")
    if not native.existing_rule("rules_java"):
        _rules_java_shim(name = "rules_java")
    if not native.existing_rule("remote_coverage_tools"):
        _remote_coverage_tools_shim(name = "remote_coverage_tools")
