/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * WorkloadReader: picks the format of a file and runs its parser (text-workload-reader.cc,
 * aicb-workload-reader.cc), catching the parsers' errors for the TryRead functions.
 */
#include "workload-reader.h"

#include "workload-reader-internal.h"

#include "ns3/fatal-error.h"
#include "ns3/log.h"

#include <exception>
#include <new>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WorkloadReader");

using namespace reader;

namespace
{

/**
 * \brief Pick the format from the first non-comment line and parse.
 * \param path file name
 * \param [out] notices if given: the defaults taken and fields ignored (AICB)
 * \return the workload
 */
TrainingWorkload
ParseAny(const std::string& path, std::vector<std::string>* notices)
{
    const std::vector<std::string> lines = ReadLines(path);
    bool blank = true;
    for (const auto& line : lines)
    {
        blank = blank && Tokens(line, false).empty();
    }
    if (blank)
    {
        Fail(path + ": the file is empty (a workload file starts with \"" + TEXT_MAGIC + " " +
             std::to_string(TEXT_VERSION) +
             "\" or, for AICB/SimAI, with a parallelism policy such as "
             "HYBRID_TRANSFORMER_FWD_IN_BCKWD)");
    }
    for (const auto& line : lines)
    {
        const std::vector<std::string> t = Tokens(line, true);
        if (t.empty())
        {
            continue;
        }
        bool policy = !t[0].empty();
        bool letter = false;
        for (char c : t[0])
        {
            policy = policy && ((c >= 'A' && c <= 'Z') || c == '_');
            letter = letter || (c >= 'A' && c <= 'Z');
        }
        return policy && letter ? ParseAicb(path, notices) : ParseText(path);
    }
    return ParseText(path); // reports the missing header
}

/**
 * \brief Run a parser, catching its errors (and any allocation failure).
 * \param parse the parser
 * \param path file name
 * \param [out] out the workload
 * \param [out] error the message
 * \return whether it succeeded
 */
template <typename Parse>
bool
Try(Parse parse, const std::string& path, TrainingWorkload& out, std::string& error)
{
    try
    {
        out = parse();
        error.clear();
        return true;
    }
    catch (const ReaderError& e)
    {
        error = e.what();
    }
    catch (const std::bad_alloc&)
    {
        error = path + ": out of memory while reading the workload file";
    }
    catch (const std::exception& e)
    {
        error = path + ": " + e.what();
    }
    return false;
}

} // namespace

bool
WorkloadReader::TryReadText(const std::string& path, TrainingWorkload& out, std::string& error)
{
    NS_LOG_FUNCTION(path);
    return Try([&]() { return ParseText(path); }, path, out, error);
}

bool
WorkloadReader::TryReadAicb(const std::string& path,
                            TrainingWorkload& out,
                            std::string& error,
                            std::vector<std::string>* notices)
{
    NS_LOG_FUNCTION(path);
    std::vector<std::string> n;
    const bool ok = Try([&]() { return ParseAicb(path, &n); }, path, out, error);
    if (ok && notices)
    {
        *notices = n;
    }
    return ok;
}

bool
WorkloadReader::TryRead(const std::string& path,
                        TrainingWorkload& out,
                        std::string& error,
                        std::vector<std::string>* notices)
{
    NS_LOG_FUNCTION(path);
    std::vector<std::string> n;
    const bool ok = Try([&]() { return ParseAny(path, &n); }, path, out, error);
    if (ok && notices)
    {
        *notices = n;
    }
    return ok;
}

TrainingWorkload
WorkloadReader::ReadText(const std::string& path)
{
    TrainingWorkload w;
    std::string error;
    if (!TryReadText(path, w, error))
    {
        NS_FATAL_ERROR(error);
    }
    return w;
}

TrainingWorkload
WorkloadReader::ReadAicb(const std::string& path)
{
    TrainingWorkload w;
    std::string error;
    if (!TryReadAicb(path, w, error))
    {
        NS_FATAL_ERROR(error);
    }
    return w;
}

TrainingWorkload
WorkloadReader::Read(const std::string& path)
{
    TrainingWorkload w;
    std::string error;
    if (!TryRead(path, w, error))
    {
        NS_FATAL_ERROR(error);
    }
    return w;
}

} // namespace ns3
