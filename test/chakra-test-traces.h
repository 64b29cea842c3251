/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AIT_CHAKRA_TEST_TRACES_H
#define AIT_CHAKRA_TEST_TRACES_H

#include "ait-test-fixture.h"
#include "scratch-dir.h"

#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace ns3
{
namespace test
{

/**
 * \ingroup ai-training-tests
 * \brief The path of the Chakra trace generator make-chakra-et (bench/make-chakra-et.cc).
 * \return it; "" where it is not built (no protobuf, or in-tree): skip then
 */
inline std::string
ChakraGenerator()
{
#ifdef AIT_CHAKRA_GEN
    return AIT_CHAKRA_GEN;
#else
    return "";
#endif
}

/**
 * \ingroup ai-training-tests
 * \brief A fresh, empty directory for one Chakra test.
 * \param name the test's name for it
 * \return its path (ScratchDir()/ait-chakra-NAME-PID)
 */
inline std::string
ChakraTmpDir(const std::string& name)
{
    const std::string d =
        ns3::test::ScratchDir() + "ait-chakra-" + name + "-" + std::to_string(getpid());
    Shell("rm -rf " + d + " && mkdir -p " + d);
    return d;
}

/**
 * \ingroup ai-training-tests
 * \brief Write DIR/NAME.<rank>.et[.gz] from a make-chakra-et description (a failure of the
 *        generator fails the test).
 * \param dir the directory
 * \param name the trace's name
 * \param spec the description (make-chakra-et's input)
 * \return the trace's prefix DIR/NAME
 */
inline std::string
WriteChakraTrace(const std::string& dir, const std::string& name, const std::string& spec)
{
    const std::string specPath = dir + "/" + name + ".spec";
    std::ofstream(specPath) << spec;
    const ProgramRun o =
        RunProgram(ChakraGenerator() + " " + specPath + " " + dir + "/" + name, 120);
    EXPECT_EQ(o.rc, 0) << o.err;
    return dir + "/" + name;
}

/**
 * \ingroup ai-training-tests
 * \brief The data rows of a CSV file (the header line skipped), split at commas.
 * \param path the file
 * \return its rows
 */
inline std::vector<std::vector<std::string>>
CsvRows(const std::string& path)
{
    std::vector<std::vector<std::string>> rows = CsvLines(path);
    if (!rows.empty())
    {
        rows.erase(rows.begin());
    }
    return rows;
}

} // namespace test
} // namespace ns3

/// Skip the test where the Chakra generator or the study program is not built.
#define SKIP_WITHOUT_CHAKRA()                                                                      \
    if (ns3::test::SimProgram().empty() || ns3::test::ChakraGenerator().empty())                   \
    {                                                                                              \
        GTEST_SKIP() << "no Chakra generator or study program here (no protobuf, or in-tree)";     \
    }

#endif // AIT_CHAKRA_TEST_TRACES_H
