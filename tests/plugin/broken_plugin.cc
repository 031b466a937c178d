// A plugin that needs a framework symbol no host provides, as a plugin built
// against a newer framework would: loading it must fail with the dynamic
// loader's "undefined symbol" message and a hint on how plugins link.
namespace rill {
void PluginTestSymbolNoFrameworkDefines();
}  // namespace rill

namespace {
const bool kCalled [[maybe_unused]] =
    (rill::PluginTestSymbolNoFrameworkDefines(), true);
}  // namespace
