/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef WORKLOAD_READER_H
#define WORKLOAD_READER_H

#include "training-workload.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief Reads training workloads from files: the module's own text format (documented in
 *        traces/README.md) and AICB/SimAI workload files.
 *
 * A file is read and checked completely before anything is returned: nothing is
 * half-configured. The TryRead functions never stop the run: they return false with one line
 * "path:line: reason" (or "path: reason" for a file-level problem) naming the offending token
 * and what is allowed; the Read functions stop the run (NS_FATAL_ERROR) with the same message,
 * for C++ callers. Files, sizes and expansions beyond the stated limits (MAX_FILE_BYTES,
 * MAX_FILE_LINES and the TrainingWorkload::MAX_* limits, traces/README.md) are rejected before
 * anything is allocated for them.
 */
class WorkloadReader
{
  public:
    static constexpr uint64_t MAX_FILE_BYTES = uint64_t(256) << 20; //!< largest file (256 MiB)
    static constexpr uint32_t MAX_FILE_LINES = 4000000;             //!< most lines of a file

    /**
     * \brief Read the text workload format (traces/README.md).
     * \param path file name
     * \param [out] out the workload (validated), untouched on failure
     * \param [out] error on failure, one line "path:line: reason" or "path: reason"
     * \return false if the file cannot be read or is not a valid workload
     */
    static bool TryReadText(const std::string& path, TrainingWorkload& out, std::string& error);

    /**
     * \brief Import an AICB/SimAI workload file (see ReadAicb), without stopping the run.
     * \param path file name
     * \param [out] out the workload (validated), untouched on failure
     * \param [out] error on failure, one line "path:line: reason" or "path: reason"
     * \param [out] notices if given, on success: one line "path:line: text" per default taken
     *        or field ignored (as SimAI's parser, which takes defaults for missing keys); the
     *        same lines are logged with NS_LOG_WARN
     * \return false if the file cannot be read or is not a valid workload
     */
    static bool TryReadAicb(const std::string& path,
                            TrainingWorkload& out,
                            std::string& error,
                            std::vector<std::string>* notices = nullptr);

    /**
     * \brief Read either format (as Read), without stopping the run. An empty file (nothing
     *        but white space) is reported as "path: the file is empty ...".
     * \param path file name
     * \param [out] out the workload (validated), untouched on failure
     * \param [out] error on failure, one line "path:line: reason" or "path: reason"
     * \param [out] notices if given, on success: the AICB notices (see TryReadAicb; the text
     *        format has none)
     * \return false if the file cannot be read or is not a valid workload
     */
    static bool TryRead(const std::string& path,
                        TrainingWorkload& out,
                        std::string& error,
                        std::vector<std::string>* notices = nullptr);

    /**
     * \brief Read the text workload format (traces/README.md); stop the run on error.
     * \param path file name
     * \return the workload (validated)
     */
    static TrainingWorkload ReadText(const std::string& path);

    /**
     * \brief Import an AICB/SimAI workload file: line 1 the parallelism policy
     *        (HYBRID_TRANSFORMER_FWD_IN_BCKWD, HYBRID_TRANSFORMER, DATA or MICRO) and key/values
     *        (tp = model_parallel_NPU_group, ep, pp, ga = micro-batches, pp_comm = bytes
     *        between stages, all_gpus = TrainingWorkload::declaredRanks; missing keys take
     *        SimAI's default 1), line 2 the number of layer lines, then one 12-field line per
     *        layer, laid out with TrainingWorkload::FromLayers (MICRO: the weight-gradient
     *        collectives over all GPUs, back to back). Unlike SimAI, pipeline sends are real
     *        traffic and BROADCAST runs. Stops the run on error; notices are logged
     *        (NS_LOG_WARN).
     * \param path file name
     * \return the workload (validated)
     */
    static TrainingWorkload ReadAicb(const std::string& path);

    /**
     * \brief Read either format: AICB if the first line starts with a parallelism policy
     *        (e.g. HYBRID_TRANSFORMER_FWD_IN_BCKWD), else the text format. Stops the run on
     *        error.
     * \param path file name
     * \return the workload (validated)
     */
    static TrainingWorkload Read(const std::string& path);
};

} // namespace ns3

#endif // WORKLOAD_READER_H
