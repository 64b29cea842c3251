/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef WORKLOAD_READER_H
#define WORKLOAD_READER_H

#include "training-workload.h"

#include <string>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief Reads training workloads from files: the module's own text format (documented in
 *        traces/README.md) and AICB/SimAI workload files.
 *
 * A file is read and checked completely before anything is returned: a malformed file stops
 * the run with "file:line: reason" and nothing is half-configured.
 */
class WorkloadReader
{
  public:
    /**
     * \brief Read the text workload format (traces/README.md).
     * \param path file name
     * \return the workload (validated)
     */
    static TrainingWorkload ReadText(const std::string& path);

    /**
     * \brief Import an AICB/SimAI workload file: line 1 the parallelism policy and key/values
     *        (tp = model_parallel_NPU_group, ep, pp, ga = micro-batches, pp_comm = bytes
     *        between stages, all_gpus), line 2 the number of layer lines, then one 12-field
     *        line per layer, laid out with TrainingWorkload::FromLayers. Unlike SimAI, pipeline
     *        sends are real traffic.
     * \param path file name
     * \return the workload (validated)
     */
    static TrainingWorkload ReadAicb(const std::string& path);

    /**
     * \brief Read either format: AICB if the first line starts with a parallelism policy
     *        (e.g. HYBRID_TRANSFORMER_FWD_IN_BCKWD), else the text format.
     * \param path file name
     * \return the workload (validated)
     */
    static TrainingWorkload Read(const std::string& path);
};

} // namespace ns3

#endif // WORKLOAD_READER_H
