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
 * trace is connected, and the owner may keep a summary of which ones are connected for its
 * per-packet path (\p changed). Config paths, Connect, ConnectWithoutContext and Disconnect work
 * as with MakeTraceSourceAccessor.
 *
 * \tparam OWNER the object class (the TypeId's class)
 * \tparam BLOCK the struct holding the TracedCallbacks
 * \tparam SOURCE the TracedCallback type
 * \param getter the owner's member function that returns the block, allocating it if needed
 * \param source the TracedCallback inside the block
 * \param changed the owner's member function to call after every connection or disconnection
 *        through the accessor (e.g. to keep a summary of which traces are connected where the
 *        per-packet path reads it), or nullptr
 * \returns the accessor for TypeId::AddTraceSource
 */
template <typename OWNER, typename BLOCK, typename SOURCE>
Ptr<const TraceSourceAccessor>
MakeLazyTraceSourceAccessor(BLOCK& (OWNER::*getter)(),
                            SOURCE BLOCK::*source,
                            void (OWNER::*changed)() = nullptr)
{
    struct Accessor : public TraceSourceAccessor
    {
        /**
         * \param obj the object
         * \return the object as an OWNER, or nullptr if it is not one
         */
        static OWNER* Owner(ObjectBase* obj)
        {
            return dynamic_cast<OWNER*>(obj);
        }

        /**
         * \param p the owner
         * \return its trace source (the block allocated if needed)
         */
        SOURCE& Source(OWNER* p) const
        {
            return (p->*m_getter)().*m_source;
        }

        /**
         * \brief Tell the owner a connection changed (if it asked to be told).
         * \param p the owner
         */
        void Changed(OWNER* p) const
        {
            if (m_changed != nullptr)
            {
                (p->*m_changed)();
            }
        }

        bool ConnectWithoutContext(ObjectBase* obj, const CallbackBase& cb) const override
        {
            OWNER* p = Owner(obj);
            if (p == nullptr)
            {
                return false;
            }
            Source(p).ConnectWithoutContext(cb);
            Changed(p);
            return true;
        }

        bool Connect(ObjectBase* obj, std::string context, const CallbackBase& cb) const override
        {
            OWNER* p = Owner(obj);
            if (p == nullptr)
            {
                return false;
            }
            Source(p).Connect(cb, context);
            Changed(p);
            return true;
        }

        bool DisconnectWithoutContext(ObjectBase* obj, const CallbackBase& cb) const override
        {
            OWNER* p = Owner(obj);
            if (p == nullptr)
            {
                return false;
            }
            Source(p).DisconnectWithoutContext(cb);
            Changed(p);
            return true;
        }

        bool Disconnect(ObjectBase* obj, std::string context, const CallbackBase& cb) const override
        {
            OWNER* p = Owner(obj);
            if (p == nullptr)
            {
                return false;
            }
            Source(p).Disconnect(cb, context);
            Changed(p);
            return true;
        }

        BLOCK& (OWNER::*m_getter)(); //!< the owner's block getter
        SOURCE BLOCK::*m_source;     //!< the trace source in the block
        void (OWNER::*m_changed)();  //!< called after a change (or nullptr)
    }* accessor = new Accessor();

    accessor->m_getter = getter;
    accessor->m_source = source;
    accessor->m_changed = changed;
    return Ptr<const TraceSourceAccessor>(accessor, false);
}

} // namespace ns3

#endif // AI_TRAINING_LAZY_TRACE_SOURCE_ACCESSOR_H
