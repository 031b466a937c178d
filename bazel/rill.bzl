"""Rill's C++ rule wrappers: every target of ours builds with warnings as errors.

Third-party headers come in through -isystem (third_party/BUILD.bazel), so the
strict flags apply to our code only.
"""

RILL_COPTS = [
    "-Wall",
    "-Wextra",
    "-Werror",
    "-Wno-unused-parameter",
    "-Wno-sign-compare",
    "-Wno-missing-field-initializers",
]

def rill_cc_library(name, copts = [], **kwargs):
    native.cc_library(name = name, copts = RILL_COPTS + copts, **kwargs)

def rill_cc_binary(name, copts = [], **kwargs):
    native.cc_binary(name = name, copts = RILL_COPTS + copts, **kwargs)

def rill_cc_test(name, copts = [], deps = [], **kwargs):
    native.cc_test(
        name = name,
        copts = RILL_COPTS + copts,
        deps = deps + ["//third_party:gtest_main"],
        **kwargs
    )
