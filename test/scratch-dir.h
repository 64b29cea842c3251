/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AIT_TEST_SCRATCH_DIR_H
#define AIT_TEST_SCRATCH_DIR_H

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <string>
#include <system_error>
#include <unistd.h>

namespace ns3
{
namespace test
{

/**
 * \ingroup ai-training-tests
 * \brief The directory a test process writes its files into: /tmp/ait-test-<pid>/, made on
 *        first use and removed with everything in it when the process ends, unless a test
 *        failed or the environment sets AIT_KEEP_TEST_FILES (then its path is printed).
 *
 * Without it every run of the suite left its outputs (study directories, pcaps, traces; about
 * 220 MB) in /tmp.
 */
class ScratchRoot
{
  public:
    /// \return the process's instance
    static ScratchRoot& Get()
    {
        static ScratchRoot root;
        return root;
    }

    /// \return the directory, with a trailing slash
    const std::string& Path()
    {
        if (m_path.empty())
        {
            m_owner = getpid();
            m_path = "/tmp/ait-test-" + std::to_string(m_owner) + "/";
            std::filesystem::create_directories(m_path);
        }
        return m_path;
    }

    ~ScratchRoot()
    {
        if (m_path.empty() || getpid() != m_owner) // (a forked child leaves it to its parent)
        {
            return;
        }
        if (::testing::UnitTest::GetInstance()->Failed() || std::getenv("AIT_KEEP_TEST_FILES"))
        {
            std::fprintf(stderr, "test files kept in %s\n", m_path.c_str());
            return;
        }
        std::error_code ec;
        std::filesystem::remove_all(m_path, ec);
    }

  private:
    ScratchRoot() = default;
    std::string m_path; //!< the directory ("" until first used)
    pid_t m_owner{0};   //!< the process that made it
};

/// \return ScratchRoot::Get().Path(): where a test writes its files (trailing slash)
inline std::string
ScratchDir()
{
    return ScratchRoot::Get().Path();
}

} // namespace test
} // namespace ns3

#endif // AIT_TEST_SCRATCH_DIR_H
