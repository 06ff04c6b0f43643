// SSR: VPs that synchronise by send/receive rendezvous and singletons (the paper's section 3.2).
#pragma once

#include "moirai/proto_runtime/errors.h"
#include "moirai/ssr/context.h"
#include "moirai/ssr/message_type.h"
#include "moirai/ssr/run.h"
#include "moirai/ssr/singleton.h"
#include "moirai/ssr/vp_ref.h"
