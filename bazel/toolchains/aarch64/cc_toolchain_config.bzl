"""The aarch64-linux-gnu C++ toolchain: Debian's cross g++ 12 with the arm64
system libraries from Debian's multiarch packages (/usr/lib/aarch64-linux-gnu)
and, for the few that cannot be installed beside their amd64 twins, the link
names scripts/setup.sh makes in /opt/rill-aarch64/lib (see that script).

Written for Bazel 4.2.3's legacy C++ toolchain selection (--crosstool_top +
--cpu); tool_paths bring Bazel's default action configs (C, C++, .S, link, ar)
and its legacy features (PIC, dependency files, user copts/linkopts).
"""

load(
    "@bazel_tools//tools/cpp:cc_toolchain_config_lib.bzl",
    "action_config",
    "feature",
    "flag_group",
    "tool",
    "flag_set",
    "tool_path",
    "with_feature_set",
)
load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "ACTION_NAMES")

# Where setup.sh puts the arm64 libraries that are not multiarch-installable.
EXTRA_LIB_DIR = "/opt/rill-aarch64/lib"

_COMPILE_ACTIONS = [
    ACTION_NAMES.assemble,
    ACTION_NAMES.preprocess_assemble,
    ACTION_NAMES.c_compile,
    ACTION_NAMES.cpp_compile,
    ACTION_NAMES.cpp_header_parsing,
    ACTION_NAMES.cpp_module_compile,
    ACTION_NAMES.linkstamp_compile,
]

_LINK_ACTIONS = [
    ACTION_NAMES.cpp_link_executable,
    ACTION_NAMES.cpp_link_dynamic_library,
    ACTION_NAMES.cpp_link_nodeps_dynamic_library,
]

def _impl(ctx):
    tool_paths = [
        tool_path(name = "gcc", path = "/usr/bin/aarch64-linux-gnu-gcc"),
        tool_path(name = "cpp", path = "/usr/bin/aarch64-linux-gnu-cpp"),
        tool_path(name = "ar", path = "/usr/bin/aarch64-linux-gnu-ar"),
        tool_path(name = "ld", path = "/usr/bin/aarch64-linux-gnu-ld"),
        tool_path(name = "nm", path = "/usr/bin/aarch64-linux-gnu-nm"),
        tool_path(name = "objcopy", path = "/usr/bin/aarch64-linux-gnu-objcopy"),
        tool_path(name = "objdump", path = "/usr/bin/aarch64-linux-gnu-objdump"),
        tool_path(name = "strip", path = "/usr/bin/aarch64-linux-gnu-strip"),
        tool_path(name = "gcov", path = "/usr/bin/aarch64-linux-gnu-gcov"),
        tool_path(name = "dwp", path = "/usr/bin/aarch64-linux-gnu-dwp"),
    ]

    default_compile_flags = feature(
        name = "default_compile_flags",
        enabled = True,
        flag_sets = [
            flag_set(
                actions = _COMPILE_ACTIONS,
                flag_groups = [flag_group(flags = [
                    # The baseline every ARMv8-A Linux CPU has (NEON is part
                    # of it); the fp16 kernels ask for ARMv8.2-A themselves
                    # and run only where HWCAP says so.
                    "-march=armv8-a",
                    "-U_FORTIFY_SOURCE",
                    "-fstack-protector",
                    "-fno-omit-frame-pointer",
                    # Reproducible outputs.
                    "-Wno-builtin-macro-redefined",
                    "-D__DATE__=\"redacted\"",
                    "-D__TIMESTAMP__=\"redacted\"",
                    "-D__TIME__=\"redacted\"",
                ])],
            ),
            flag_set(
                actions = _COMPILE_ACTIONS,
                flag_groups = [flag_group(flags = ["-g"])],
                with_features = [with_feature_set(features = ["dbg"])],
            ),
            flag_set(
                actions = _COMPILE_ACTIONS,
                flag_groups = [flag_group(flags = [
                    "-g0",
                    "-O2",
                    "-D_FORTIFY_SOURCE=1",
                    "-DNDEBUG",
                    "-ffunction-sections",
                    "-fdata-sections",
                ])],
                with_features = [with_feature_set(features = ["opt"])],
            ),
            flag_set(
                actions = [
                    ACTION_NAMES.cpp_compile,
                    ACTION_NAMES.cpp_header_parsing,
                    ACTION_NAMES.cpp_module_compile,
                    ACTION_NAMES.linkstamp_compile,
                ],
                flag_groups = [flag_group(flags = ["-std=c++17"])],
            ),
        ],
    )

    default_link_flags = feature(
        name = "default_link_flags",
        enabled = True,
        flag_sets = [
            flag_set(
                actions = _LINK_ACTIONS,
                flag_groups = [flag_group(flags = [
                    "-L" + EXTRA_LIB_DIR,
                    "-Wl,-rpath-link," + EXTRA_LIB_DIR,
                    "-Wl,-z,relro,-z,now",
                    "-Wl,--build-id=md5",
                    "-Wl,--hash-style=gnu",
                    "-pass-exit-codes",
                    "-lstdc++",
                    "-lm",
                ])],
            ),
            flag_set(
                actions = _LINK_ACTIONS,
                flag_groups = [flag_group(flags = ["-Wl,--gc-sections"])],
                with_features = [with_feature_set(features = ["opt"])],
            ),
        ],
    )

    # The links run gcc.sh (aarch64-linux-gnu-gcc with --no-as-needed ahead
    # of the libraries: see there); the other actions keep the defaults
    # tool_paths make.
    link_action_configs = [
        action_config(
            action_name = name,
            enabled = True,
            tools = [tool(path = "gcc.sh")],
            implies = [
                "strip_debug_symbols",
                "linkstamps",
                "output_execpath_flags",
                "runtime_library_search_directories",
                "library_search_directories",
                "libraries_to_link",
                "force_pic_flags",
                "user_link_flags",
                "legacy_link_flags",
                "linker_param_file",
                "fission_support",
                "sysroot",
            ] + (["shared_flag"] if name != ACTION_NAMES.cpp_link_executable else []),
        )
        for name in _LINK_ACTIONS
    ]

    features = [
        feature(name = "supports_pic", enabled = True),
        feature(name = "supports_dynamic_linker", enabled = True),
        feature(name = "dbg"),
        feature(name = "opt"),
        default_compile_flags,
        default_link_flags,
    ]

    return cc_common.create_cc_toolchain_config_info(
        ctx = ctx,
        features = features,
        cxx_builtin_include_directories = [
            "/usr/lib/gcc-cross/aarch64-linux-gnu/12/include",
            "/usr/aarch64-linux-gnu/include",
            "/usr/include",
        ],
        toolchain_identifier = "aarch64-linux-gnu",
        host_system_name = "x86_64-unknown-linux-gnu",
        target_system_name = "aarch64-unknown-linux-gnu",
        target_cpu = "aarch64",
        target_libc = "glibc_2.36",
        compiler = "gcc",
        abi_version = "gcc",
        abi_libc_version = "glibc_2.36",
        tool_paths = tool_paths,
        action_configs = link_action_configs,
    )

aarch64_cc_toolchain_config = rule(
    implementation = _impl,
    attrs = {},
    provides = [CcToolchainConfigInfo],
)
