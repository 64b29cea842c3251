/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef QP_CREATION_BATCH_H
#define QP_CREATION_BATCH_H

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief A scope in which many queue pairs are created at once (a collective's connections).
 *
 * While a QpCreationBatch is alive, each RdmaNic constructs the congestion control of its
 * first queue pair of the batch through the attribute system (ObjectFactory, as always) and
 * gives every further queue pair of the batch a copy of that instance
 * (RoceCongestionOps::Copy). Constructing an ns-3 object copies and checks every attribute of
 * its class; a 1024-rank all-to-all makes a million congestion-control instances, and copying
 * them costs a small part of that. The queue pairs are the same either way: an attribute
 * default set with Config::SetDefault before a batch holds for all its QPs, one set after it
 * for the next batch's. Code that runs inside a batch (the loops that connect a collective's
 * ranks) must not change congestion-control defaults: when the outermost batch closes, each NIC
 * that copied its instance more than once in it compares the instance's attribute values with a
 * new instance of the class, and a difference stops the run naming the attribute
 * (RdmaNic::CheckBatchDefaults; one comparison per NIC and batch, not per QP). Batches nest (the
 * outermost one counts).
 *
 * The communicator and its algorithms open one around each set of connections they build;
 * a script that connects many QPs itself may open one around its loop:
 * \code
 *   {
 *       QpCreationBatch batch;
 *       for (...) { rdma.Connect(a, b); }
 *   }
 * \endcode
 */
class QpCreationBatch
{
  public:
    QpCreationBatch();
    ~QpCreationBatch();

    QpCreationBatch(const QpCreationBatch&) = delete;
    QpCreationBatch& operator=(const QpCreationBatch&) = delete;

    /**
     * \return the number of the open (outermost) batch, counted from 1, or 0 if no batch is
     *         open; every batch has a new number
     */
    static uint64_t GetOpen();

  private:
    static uint32_t s_depth;  //!< batches alive (nesting)
    static uint64_t s_number; //!< number of the latest outermost batch
};

} // namespace ns3

#endif // QP_CREATION_BATCH_H
