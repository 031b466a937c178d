"""C++ code generation for .proto files with the system protoc (/usr/bin/protoc).

rill_cc_proto_library(name, srcs, deps) generates <file>.pb.{h,cc} for each
source and wraps them in a cc_library. `deps` are other rill_cc_proto_library
targets; their .proto files are made visible to protoc so imports resolve.
Imports are written from the repository root: import "framework/proto/x.proto".
"""

def rill_cc_proto_library(name, srcs, deps = [], visibility = None):
    hdrs = [s[:-len(".proto")] + ".pb.h" for s in srcs]
    ccs = [s[:-len(".proto")] + ".pb.cc" for s in srcs]
    native.filegroup(
        name = name + "_protos",
        srcs = srcs + [d + "_protos" for d in deps],
        visibility = visibility,
    )
    pkg = native.package_name()
    files = " ".join([(pkg + "/" if pkg else "") + s for s in srcs])
    native.genrule(
        name = name + "_genproto",
        srcs = [name + "_protos"],
        outs = hdrs + ccs,
        cmd = "/usr/bin/protoc -I. -I$(GENDIR) -I/usr/include --cpp_out=$(GENDIR) " + files,
        message = "protoc " + name,
    )
    native.cc_library(
        name = name,
        srcs = ccs,
        hdrs = hdrs,
        deps = deps + ["//third_party:protobuf"],
        visibility = visibility,
    )
