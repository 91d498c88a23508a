"""cc_toolchain_config for Debian's aarch64-linux-gnu-gcc 12 cross compiler.

Used by //platforms:aarch64_toolchain_suite (--config=aarch64). The compiler
finds its own target headers and libraries (/usr/aarch64-linux-gnu, no
--sysroot); Debian's arm64 multiarch libraries (/usr/lib/aarch64-linux-gnu) are
added by the third_party/system_libs.bzl repositories.

Modelled on Bazel's unix_cc_toolchain_config.bzl (the one the host toolchain
uses), minus clang-only features. Every feature whose flag order matters is
declared here; Bazel's legacy features supply the remaining plumbing
(-o / -c / -MD output flags, param files, ...).
"""

load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "ACTION_NAMES")
load(
    "@bazel_tools//tools/cpp:cc_toolchain_config_lib.bzl",
    "feature",
    "flag_group",
    "flag_set",
    "tool_path",
    "variable_with_value",
    "with_feature_set",
)

_ALL_COMPILE_ACTIONS = [
    ACTION_NAMES.c_compile,
    ACTION_NAMES.cpp_compile,
    ACTION_NAMES.linkstamp_compile,
    ACTION_NAMES.assemble,
    ACTION_NAMES.preprocess_assemble,
    ACTION_NAMES.cpp_header_parsing,
    ACTION_NAMES.cpp_module_compile,
    ACTION_NAMES.cpp_module_codegen,
    ACTION_NAMES.clif_match,
    ACTION_NAMES.lto_backend,
]

_ALL_CPP_COMPILE_ACTIONS = [
    ACTION_NAMES.cpp_compile,
    ACTION_NAMES.linkstamp_compile,
    ACTION_NAMES.cpp_header_parsing,
    ACTION_NAMES.cpp_module_compile,
    ACTION_NAMES.cpp_module_codegen,
    ACTION_NAMES.clif_match,
]

_PREPROCESSOR_ACTIONS = [
    ACTION_NAMES.preprocess_assemble,
    ACTION_NAMES.linkstamp_compile,
    ACTION_NAMES.c_compile,
    ACTION_NAMES.cpp_compile,
    ACTION_NAMES.cpp_header_parsing,
    ACTION_NAMES.cpp_module_compile,
    ACTION_NAMES.clif_match,
]

_CODEGEN_ACTIONS = [
    ACTION_NAMES.assemble,
    ACTION_NAMES.preprocess_assemble,
    ACTION_NAMES.linkstamp_compile,
    ACTION_NAMES.c_compile,
    ACTION_NAMES.cpp_compile,
    ACTION_NAMES.cpp_module_codegen,
    ACTION_NAMES.cpp_module_compile,
]

_ALL_LINK_ACTIONS = [
    ACTION_NAMES.cpp_link_executable,
    ACTION_NAMES.cpp_link_dynamic_library,
    ACTION_NAMES.cpp_link_nodeps_dynamic_library,
]

def _flag_sets(actions, flags, only_with_feature = None):
    """A one-element list of flag_set, or [] when there are no flags."""
    if not flags:
        return []
    return [flag_set(
        actions = actions,
        flag_groups = [flag_group(flags = flags)],
        with_features = [with_feature_set(features = [only_with_feature])] if only_with_feature else [],
    )]

def _lib(type_, flags):
    """Flags for one entry of libraries_to_link of the given type."""
    return flag_group(
        flags = flags,
        expand_if_equal = variable_with_value(name = "libraries_to_link.type", value = type_),
    )

def _impl(ctx):
    a = ctx.attr

    default_compile_flags = feature(
        name = "default_compile_flags",
        enabled = True,
        flag_sets = (
            _flag_sets(_ALL_COMPILE_ACTIONS, a.compile_flags) +
            _flag_sets(_ALL_COMPILE_ACTIONS, a.dbg_compile_flags, "dbg") +
            _flag_sets(_ALL_COMPILE_ACTIONS, a.opt_compile_flags, "opt") +
            _flag_sets(_ALL_CPP_COMPILE_ACTIONS + [ACTION_NAMES.lto_backend], a.cxx_flags)
        ),
    )

    default_link_flags = feature(
        name = "default_link_flags",
        enabled = True,
        flag_sets = (
            _flag_sets(_ALL_LINK_ACTIONS, a.link_flags) +
            _flag_sets(_ALL_LINK_ACTIONS, a.opt_link_flags, "opt")
        ),
    )

    dependency_file = feature(
        name = "dependency_file",
        enabled = True,
        flag_sets = [flag_set(
            actions = [
                ACTION_NAMES.assemble,
                ACTION_NAMES.preprocess_assemble,
                ACTION_NAMES.c_compile,
                ACTION_NAMES.cpp_compile,
                ACTION_NAMES.cpp_module_compile,
                ACTION_NAMES.cpp_header_parsing,
                ACTION_NAMES.clif_match,
            ],
            flag_groups = [flag_group(
                flags = ["-MD", "-MF", "%{dependency_file}"],
                expand_if_available = "dependency_file",
            )],
        )],
    )

    random_seed = feature(
        name = "random_seed",
        enabled = True,
        flag_sets = [flag_set(
            actions = [
                ACTION_NAMES.c_compile,
                ACTION_NAMES.cpp_compile,
                ACTION_NAMES.cpp_module_codegen,
                ACTION_NAMES.cpp_module_compile,
            ],
            flag_groups = [flag_group(
                flags = ["-frandom-seed=%{output_file}"],
                expand_if_available = "output_file",
            )],
        )],
    )

    pic = feature(
        name = "pic",
        enabled = True,
        flag_sets = [flag_set(
            actions = _CODEGEN_ACTIONS,
            flag_groups = [flag_group(flags = ["-fPIC"], expand_if_available = "pic")],
        )],
    )

    preprocessor_defines = feature(
        name = "preprocessor_defines",
        enabled = True,
        flag_sets = [flag_set(
            actions = _PREPROCESSOR_ACTIONS,
            flag_groups = [flag_group(
                flags = ["-D%{preprocessor_defines}"],
                iterate_over = "preprocessor_defines",
            )],
        )],
    )

    includes = feature(
        name = "includes",
        enabled = True,
        flag_sets = [flag_set(
            actions = _PREPROCESSOR_ACTIONS,
            flag_groups = [flag_group(
                flags = ["-include", "%{includes}"],
                iterate_over = "includes",
                expand_if_available = "includes",
            )],
        )],
    )

    include_paths = feature(
        name = "include_paths",
        enabled = True,
        flag_sets = [flag_set(
            actions = _PREPROCESSOR_ACTIONS,
            flag_groups = [
                flag_group(
                    flags = ["-iquote", "%{quote_include_paths}"],
                    iterate_over = "quote_include_paths",
                ),
                flag_group(
                    flags = ["-I%{include_paths}"],
                    iterate_over = "include_paths",
                ),
                flag_group(
                    flags = ["-isystem", "%{system_include_paths}"],
                    iterate_over = "system_include_paths",
                ),
            ],
        )],
    )

    shared_flag = feature(
        name = "shared_flag",
        flag_sets = [flag_set(
            actions = [
                ACTION_NAMES.cpp_link_dynamic_library,
                ACTION_NAMES.cpp_link_nodeps_dynamic_library,
            ],
            flag_groups = [flag_group(flags = ["-shared"])],
        )],
    )

    linkstamps = feature(
        name = "linkstamps",
        flag_sets = [flag_set(
            actions = _ALL_LINK_ACTIONS,
            flag_groups = [flag_group(
                flags = ["%{linkstamp_paths}"],
                iterate_over = "linkstamp_paths",
                expand_if_available = "linkstamp_paths",
            )],
        )],
    )

    output_execpath_flags = feature(
        name = "output_execpath_flags",
        flag_sets = [flag_set(
            actions = _ALL_LINK_ACTIONS,
            flag_groups = [flag_group(
                flags = ["-o", "%{output_execpath}"],
                expand_if_available = "output_execpath",
            )],
        )],
    )

    runtime_library_search_directories = feature(
        name = "runtime_library_search_directories",
        flag_sets = [flag_set(
            actions = _ALL_LINK_ACTIONS,
            flag_groups = [flag_group(
                iterate_over = "runtime_library_search_directories",
                flag_groups = [flag_group(
                    flags = ["-Wl,-rpath,$ORIGIN/%{runtime_library_search_directories}"],
                )],
                expand_if_available = "runtime_library_search_directories",
            )],
        )],
    )

    library_search_directories = feature(
        name = "library_search_directories",
        flag_sets = [flag_set(
            actions = _ALL_LINK_ACTIONS,
            flag_groups = [flag_group(
                flags = ["-L%{library_search_directories}"],
                iterate_over = "library_search_directories",
                expand_if_available = "library_search_directories",
            )],
        )],
    )

    archiver_flags = feature(
        name = "archiver_flags",
        flag_sets = [
            flag_set(
                actions = [ACTION_NAMES.cpp_link_static_library],
                flag_groups = [
                    flag_group(flags = ["rcsD"]),
                    flag_group(
                        flags = ["%{output_execpath}"],
                        expand_if_available = "output_execpath",
                    ),
                ],
            ),
            flag_set(
                actions = [ACTION_NAMES.cpp_link_static_library],
                flag_groups = [flag_group(
                    iterate_over = "libraries_to_link",
                    flag_groups = [
                        flag_group(
                            flags = ["%{libraries_to_link.name}"],
                            expand_if_equal = variable_with_value(
                                name = "libraries_to_link.type",
                                value = "object_file",
                            ),
                        ),
                        flag_group(
                            flags = ["%{libraries_to_link.object_files}"],
                            iterate_over = "libraries_to_link.object_files",
                            expand_if_equal = variable_with_value(
                                name = "libraries_to_link.type",
                                value = "object_file_group",
                            ),
                        ),
                    ],
                    expand_if_available = "libraries_to_link",
                )],
            ),
        ],
    )

    force_pic_flags = feature(
        name = "force_pic_flags",
        flag_sets = [flag_set(
            actions = [ACTION_NAMES.cpp_link_executable],
            flag_groups = [flag_group(flags = ["-pie"], expand_if_available = "force_pic")],
        )],
    )

    strip_debug_symbols = feature(
        name = "strip_debug_symbols",
        flag_sets = [flag_set(
            actions = _ALL_LINK_ACTIONS,
            flag_groups = [flag_group(
                flags = ["-Wl,-S"],
                expand_if_available = "strip_debug_symbols",
            )],
        )],
    )

    libraries_to_link = feature(
        name = "libraries_to_link",
        flag_sets = [flag_set(
            actions = _ALL_LINK_ACTIONS,
            flag_groups = [flag_group(
                iterate_over = "libraries_to_link",
                flag_groups = [
                    _lib("object_file_group", ["-Wl,--start-lib"]),
                    flag_group(
                        flags = ["-Wl,-whole-archive"],
                        expand_if_true = "libraries_to_link.is_whole_archive",
                    ),
                    flag_group(
                        flags = ["%{libraries_to_link.object_files}"],
                        iterate_over = "libraries_to_link.object_files",
                        expand_if_equal = variable_with_value(
                            name = "libraries_to_link.type",
                            value = "object_file_group",
                        ),
                    ),
                    _lib("object_file", ["%{libraries_to_link.name}"]),
                    _lib("interface_library", ["%{libraries_to_link.name}"]),
                    _lib("static_library", ["%{libraries_to_link.name}"]),
                    _lib("dynamic_library", ["-l%{libraries_to_link.name}"]),
                    _lib("versioned_dynamic_library", ["-l:%{libraries_to_link.name}"]),
                    flag_group(
                        flags = ["-Wl,-no-whole-archive"],
                        expand_if_true = "libraries_to_link.is_whole_archive",
                    ),
                    _lib("object_file_group", ["-Wl,--end-lib"]),
                ],
                expand_if_available = "libraries_to_link",
            )],
        )],
    )

    # --linkopt and linkopts, then the C++ runtime, so that -lstdc++ -lm
    # -pthread come after every object and library that needs them.
    user_link_flags = feature(
        name = "user_link_flags",
        flag_sets = [flag_set(
            actions = _ALL_LINK_ACTIONS,
            flag_groups = [
                flag_group(
                    flags = ["%{user_link_flags}"],
                    iterate_over = "user_link_flags",
                    expand_if_available = "user_link_flags",
                ),
            ] + ([flag_group(flags = a.link_libs)] if a.link_libs else []),
        )],
    )

    # --copt, --cxxopt (e.g. the -std=c++17 of .bazelrc), copts: after the
    # defaults so that they win.
    user_compile_flags = feature(
        name = "user_compile_flags",
        enabled = True,
        flag_sets = [flag_set(
            actions = _ALL_COMPILE_ACTIONS,
            flag_groups = [flag_group(
                flags = ["%{user_compile_flags}"],
                iterate_over = "user_compile_flags",
                expand_if_available = "user_compile_flags",
            )],
        )],
    )

    sysroot = feature(
        name = "sysroot",
        enabled = True,
        flag_sets = [flag_set(
            actions = [
                ACTION_NAMES.preprocess_assemble,
                ACTION_NAMES.linkstamp_compile,
                ACTION_NAMES.c_compile,
                ACTION_NAMES.cpp_compile,
                ACTION_NAMES.cpp_header_parsing,
                ACTION_NAMES.cpp_module_compile,
                ACTION_NAMES.cpp_module_codegen,
                ACTION_NAMES.lto_backend,
                ACTION_NAMES.clif_match,
            ] + _ALL_LINK_ACTIONS,
            flag_groups = [flag_group(
                flags = ["--sysroot=%{sysroot}"],
                expand_if_available = "sysroot",
            )],
        )],
    )

    features = [
        dependency_file,
        random_seed,
        pic,
        preprocessor_defines,
        includes,
        include_paths,
        shared_flag,
        linkstamps,
        output_execpath_flags,
        runtime_library_search_directories,
        library_search_directories,
        archiver_flags,
        force_pic_flags,
        strip_debug_symbols,
        feature(name = "supports_pic", enabled = True),
        default_compile_flags,
        default_link_flags,
        libraries_to_link,
        user_link_flags,
        feature(name = "dbg"),
        feature(name = "opt"),
        user_compile_flags,
        sysroot,
        feature(
            name = "unfiltered_compile_flags",
            enabled = True,
            flag_sets = _flag_sets(_ALL_COMPILE_ACTIONS, a.unfiltered_compile_flags),
        ),
    ]

    return cc_common.create_cc_toolchain_config_info(
        ctx = ctx,
        features = features,
        cxx_builtin_include_directories = a.cxx_builtin_include_directories,
        toolchain_identifier = a.toolchain_identifier,
        host_system_name = "x86_64-linux-gnu",
        target_system_name = "aarch64-linux-gnu",
        target_cpu = a.cpu,
        target_libc = a.target_libc,
        compiler = a.compiler,
        abi_version = a.compiler,
        abi_libc_version = a.target_libc,
        tool_paths = [tool_path(name = k, path = v) for k, v in a.tool_paths.items()],
    )

aarch64_toolchain_config = rule(
    implementation = _impl,
    attrs = {
        "cpu": attr.string(default = "aarch64"),
        "compiler": attr.string(default = "gcc"),
        "toolchain_identifier": attr.string(mandatory = True),
        "target_libc": attr.string(default = "glibc"),
        "tool_paths": attr.string_dict(mandatory = True),
        "cxx_builtin_include_directories": attr.string_list(),
        "compile_flags": attr.string_list(),
        "dbg_compile_flags": attr.string_list(),
        "opt_compile_flags": attr.string_list(),
        "cxx_flags": attr.string_list(),
        "unfiltered_compile_flags": attr.string_list(),
        "link_flags": attr.string_list(),
        "opt_link_flags": attr.string_list(),
        "link_libs": attr.string_list(),
    },
    provides = [CcToolchainConfigInfo],
)
