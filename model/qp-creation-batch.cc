/* SPDX-License-Identifier: GPL-2.0-only */
#include "qp-creation-batch.h"

#include "rdma-nic.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("QpCreationBatch");

uint32_t QpCreationBatch::s_depth = 0;
uint64_t QpCreationBatch::s_number = 0;

QpCreationBatch::QpCreationBatch()
{
    if (s_depth++ == 0)
    {
        ++s_number;
        NS_LOG_LOGIC("batch " << s_number << " opens");
    }
}

QpCreationBatch::~QpCreationBatch()
{
    if (--s_depth == 0)
    {
        RdmaNic::CheckBatchDefaults(); // no congestion-control default changed inside
    }
}

uint64_t
QpCreationBatch::GetOpen()
{
    return s_depth > 0 ? s_number : 0;
}

} // namespace ns3
