/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * In-tree adapter: one ns-3 TestSuite, "ai-training", that runs every GoogleTest of the module
 * so that `./test.py -s ai-training` (and test-runner) run the same tests as the standalone
 * `ctest`. GTEST_FILTER in the environment selects a subset.
 */
#include "ns3/test.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

/**
 * \ingroup ai-training-tests
 * \brief Runs all GoogleTests linked into the test library.
 */
class GoogleTestCase : public TestCase
{
  public:
    GoogleTestCase()
        : TestCase("all GoogleTest tests of ai-training")
    {
    }

  private:
    void DoRun() override
    {
        int argc = 1;
        char name[] = "ai-training";
        char* argv[] = {name, nullptr};
        ::testing::InitGoogleTest(&argc, argv);
        const int failed = RUN_ALL_TESTS();
        NS_TEST_ASSERT_MSG_EQ(failed, 0, "some GoogleTest tests failed (see the output above)");
    }
};

/**
 * \ingroup ai-training-tests
 * \brief The ai-training test suite.
 */
class AiTrainingTestSuite : public TestSuite
{
  public:
    AiTrainingTestSuite()
        : TestSuite("ai-training")
    {
        AddTestCase(new GoogleTestCase());
    }
};

AiTrainingTestSuite g_aiTrainingTestSuite; //!< static instance

} // namespace
