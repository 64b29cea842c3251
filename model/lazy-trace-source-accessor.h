/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AI_TRAINING_LAZY_TRACE_SOURCE_ACCESSOR_H
#define AI_TRAINING_LAZY_TRACE_SOURCE_ACCESSOR_H

#include "ns3/object-base.h"
#include "ns3/ptr.h"
#include "ns3/trace-source-accessor.h"

#include <string>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief A trace source accessor for a TracedCallback that lives in a block the object
 * allocates on first use (ns-3's MakeTraceSourceAccessor needs the TracedCallback to be a
 * member of the object).
 *
 * An object with many trace sources that are rarely connected (a RoceNetDevice has 17, 24 bytes
 * each even when empty) keeps them in one struct behind a pointer: nothing is allocated until a
 * trace is connected, and the per-packet path tests one pointer. Config paths, Connect,
 * ConnectWithoutContext and Disconnect work as with MakeTraceSourceAccessor.
 *
 * \tparam OWNER the object class (the TypeId's class)
 * \tparam BLOCK the struct holding the TracedCallbacks
 * \tparam SOURCE the TracedCallback type
 * \param getter the owner's member function that returns the block, allocating it if needed
 * \param source the TracedCallback inside the block
 * \returns the accessor for TypeId::AddTraceSource
 */
template <typename OWNER, typename BLOCK, typename SOURCE>
Ptr<const TraceSourceAccessor>
MakeLazyTraceSourceAccessor(BLOCK& (OWNER::*getter)(), SOURCE BLOCK::*source)
{
    struct Accessor : public TraceSourceAccessor
    {
        SOURCE* Get(ObjectBase* obj) const
        {
            OWNER* p = dynamic_cast<OWNER*>(obj);
            return p == nullptr ? nullptr : &((p->*m_getter)().*m_source);
        }

        bool ConnectWithoutContext(ObjectBase* obj, const CallbackBase& cb) const override
        {
            SOURCE* s = Get(obj);
            if (s == nullptr)
            {
                return false;
            }
            s->ConnectWithoutContext(cb);
            return true;
        }

        bool Connect(ObjectBase* obj, std::string context, const CallbackBase& cb) const override
        {
            SOURCE* s = Get(obj);
            if (s == nullptr)
            {
                return false;
            }
            s->Connect(cb, context);
            return true;
        }

        bool DisconnectWithoutContext(ObjectBase* obj, const CallbackBase& cb) const override
        {
            SOURCE* s = Get(obj);
            if (s == nullptr)
            {
                return false;
            }
            s->DisconnectWithoutContext(cb);
            return true;
        }

        bool Disconnect(ObjectBase* obj, std::string context, const CallbackBase& cb) const override
        {
            SOURCE* s = Get(obj);
            if (s == nullptr)
            {
                return false;
            }
            s->Disconnect(cb, context);
            return true;
        }

        BLOCK& (OWNER::*m_getter)();
        SOURCE BLOCK::*m_source;
    }* accessor = new Accessor();

    accessor->m_getter = getter;
    accessor->m_source = source;
    return Ptr<const TraceSourceAccessor>(accessor, false);
}

} // namespace ns3

#endif // AI_TRAINING_LAZY_TRACE_SOURCE_ACCESSOR_H
