/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AIT_ENUM_ACCESSOR_H
#define AIT_ENUM_ACCESSOR_H

#include "ns3/enum.h"

namespace ns3
{
namespace ait_detail
{

/// ns-3 >= 3.41: EnumValue is a template, MakeEnumAccessor<E>(member) names the enum type.
template <typename E, typename M>
auto
MakeEnumAccessorFor(M member, int) -> decltype(ns3::MakeEnumAccessor<E>(member))
{
    return ns3::MakeEnumAccessor<E>(member);
}

/// ns-3 <= 3.40: MakeEnumAccessor(member) deduces everything (MakeEnumAccessor<E> is no match).
template <typename E, typename M>
Ptr<const AttributeAccessor>
MakeEnumAccessorFor(M member, long)
{
    return ns3::MakeEnumAccessor(member);
}

/// ns-3 >= 3.41, a setter and a getter.
template <typename E, typename S, typename G>
auto
MakeEnumAccessorFor(S setter, G getter, int) -> decltype(ns3::MakeEnumAccessor<E>(setter, getter))
{
    return ns3::MakeEnumAccessor<E>(setter, getter);
}

/// ns-3 <= 3.40, a setter and a getter.
template <typename E, typename S, typename G>
Ptr<const AttributeAccessor>
MakeEnumAccessorFor(S setter, G getter, long)
{
    return ns3::MakeEnumAccessor(setter, getter);
}

} // namespace ait_detail

/**
 * \ingroup ai-training
 * \brief MakeEnumAccessor for an enum-typed attribute on every ns-3 release this module builds
 *        with: ns-3.41 made EnumValue a template, after which the enum type must be named
 *        (MakeEnumAccessor<E>(&C::m_e)), which the older releases do not accept.
 *
 * \tparam E the enum type
 * \tparam M the member (or getter/setter) pointer type
 * \param member the member holding the enum
 * \returns the attribute accessor
 */
template <typename E, typename M>
Ptr<const AttributeAccessor>
MakeAitEnumAccessor(M member)
{
    return ait_detail::MakeEnumAccessorFor<E>(member, 0);
}

/**
 * \ingroup ai-training
 * \brief MakeAitEnumAccessor with a setter and a getter (e.g. a setter that checks the value).
 *
 * \tparam E the enum type
 * \tparam S the setter pointer type
 * \tparam G the getter pointer type
 * \param setter the setter
 * \param getter the getter
 * \returns the attribute accessor
 */
template <typename E, typename S, typename G>
Ptr<const AttributeAccessor>
MakeAitEnumAccessor(S setter, G getter)
{
    return ait_detail::MakeEnumAccessorFor<E>(setter, getter, 0);
}

} // namespace ns3

#endif // AIT_ENUM_ACCESSOR_H
