// Linked (alwayslink) into programs that load plugins. A static link keeps
// only the framework objects the program itself calls, but a plugin may call
// any framework function. This function is never run; it refers to one
// symbol of every framework translation unit so that the linker keeps them
// all, and the host's -rdynamic exports them for plugins to bind to.
#include <typeinfo>

#include "framework/calculator_base.h"
#include "framework/calculator_contract.h"
#include "framework/calculator_registry.h"
#include "framework/options.h"
#include "framework/packet.h"
#include "framework/packet_type.h"
#include "framework/proto/calculator.pb.h"
#include "framework/proto/calculator_options.pb.h"
#include "framework/proto/mediapipe_options.pb.h"
#include "framework/proto/stream_handler.pb.h"
#include "framework/registry.h"
#include "framework/status_util.h"
#include "framework/tag_map.h"
#include "framework/timestamp.h"

namespace rill {

void RillPluginHostKeepFrameworkSymbols();
void RillPluginHostKeepFrameworkSymbols() {
  (void)DemangleTypeName(typeid(int));               // packet.cc
  (void)Timestamp(0).DebugString();                  // timestamp.cc
  (void)CalculatorRegistry().Names();                // calculator_registry.cc
  (void)UnqualifiedName("x");                        // registry.cc
  (void)StatusStop();                                // status_util.cc
  (void)IsValidTag("X");                             // tag_map.cc
  (void)ResolveProtoTypeName("x");                   // options.cc
  (void)PacketType().DebugTypeName();                // packet_type.cc
  (void)OutputStreamShard().NextTimestampBound();    // calculator_context.cc
  CalculatorContract contract;                       // calculator_contract.cc
  (void)contract.Initialize(CalculatorGraphConfig::Node(), "x");
  (void)CalculatorOptions::default_instance();       // calculator_options.pb
  (void)MediaPipeOptions::default_instance();        // mediapipe_options.pb
  (void)InputStreamHandlerConfig::default_instance();  // stream_handler.pb
}

}  // namespace rill
