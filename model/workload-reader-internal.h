/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Internal to WorkloadReader (workload-reader.cc, text-workload-reader.cc,
 * aicb-workload-reader.cc): the pieces the text and the AICB/SimAI parsers share, defined in
 * workload-reader-internal.cc, and the parsers' entry points. Not API.
 */
#ifndef WORKLOAD_READER_INTERNAL_H
#define WORKLOAD_READER_INTERNAL_H

#include "training-workload.h"

#include <exception>
#include <sstream>
#include <string>
#include <vector>

namespace ns3
{
namespace reader
{

/// Header keyword of the text format.
constexpr const char* TEXT_MAGIC = "ai-training-workload";
/// The text format version this reader understands.
constexpr uint32_t TEXT_VERSION = 1;

/// A malformed input: what TryRead reports (never leaves the reader).
class ReaderError : public std::exception
{
  public:
    /// \param message the one-line message
    explicit ReaderError(std::string message)
        : m_message(std::move(message))
    {
    }

    /// \return the message
    const char* what() const noexcept override
    {
        return m_message.c_str();
    }

  private:
    std::string m_message; //!< the message
};

/// \brief Report a malformed input (caught by the TryRead functions).
/// \param message the one-line message
[[noreturn]] void Fail(const std::string& message);

/**
 * \brief Read a file's lines, at most WorkloadReader::MAX_FILE_BYTES and MAX_FILE_LINES.
 * \param path file name
 * \return the lines (without end-of-line characters)
 */
std::vector<std::string> ReadLines(const std::string& path);

/**
 * \param line a line
 * \param comments whether '#' starts a comment
 * \return its whitespace-separated tokens
 */
std::vector<std::string> Tokens(const std::string& line, bool comments);

/**
 * \brief Parse a non-negative integer (only digits).
 * \param s the text
 * \param [out] v the value
 * \param [out] tooLarge if given: set to whether s is all digits but more than 2^64 - 1
 * \return false if s is not a non-negative integer that fits in 64 bits
 */
bool ParseUnsigned(const std::string& s, uint64_t* v, bool* tooLarge = nullptr);

/**
 * \brief Parse a duration "<number><unit>", unit ns, us, ms or s, rounded to whole ns.
 * \param s the text
 * \param [out] t the duration
 * \return an empty string, or why s is not a duration
 */
std::string ParseDuration(const std::string& s, Time* t);

/**
 * \brief Parse a size "<number><unit>", unit B, KB, MB, GB (1000^n) or KiB, MiB, GiB (1024^n).
 * \param s the text
 * \param [out] bytes the size (> 0)
 * \return an empty string, or why s is not an allowed size
 */
std::string ParseSize(const std::string& s, uint64_t* bytes);

/**
 * \param v the parts
 * \param sep the separator
 * \return "a, b, c"
 */
std::string Join(const std::vector<std::string>& v, const std::string& sep = ", ");

/// \param path a file name \return it without directories and extension (the workload's label)
std::string Stem(const std::string& path);

/// \param c a character \return whether c may appear in an op id
bool IsIdChar(char c);

/**
 * \brief Run the stage programs abstractly to find a deadlock: an op that can never start
 *        (see workload-reader-internal.cc for the rules).
 * \param w the workload (one program per stage; sends and receives already pair up)
 * \param [out] stage the stage of the blocked op
 * \param [out] index the blocked op (the first op of that stage that can never start)
 * \param [out] why what it waits for
 * \return false if every op of every stage can run
 */
bool FindDeadlock(const TrainingWorkload& w, uint32_t* stage, uint32_t* index, std::string* why);

/**
 * \brief Check a workload read from a file (Fail with "path: reason").
 * \param path file name
 * \param w the workload
 */
void CheckOrFail(const std::string& path, const TrainingWorkload& w);

/**
 * \brief Parse a text workload file (WorkloadReader::TryReadText).
 * \param path file name
 * \return the workload
 */
TrainingWorkload ParseText(const std::string& path);

/**
 * \brief Parse an AICB/SimAI file (WorkloadReader::TryReadAicb).
 * \param path file name
 * \param [out] notices if not null: the defaults taken and fields ignored
 * \return the workload
 */
TrainingWorkload ParseAicb(const std::string& path, std::vector<std::string>* notices);

} // namespace reader
} // namespace ns3

/// Report a malformed input at a line of the file `path` (throws reader::ReaderError).
#define READER_ERROR(line, msg)                                                                    \
    do                                                                                             \
    {                                                                                              \
        std::ostringstream readerErrorStream;                                                      \
        readerErrorStream << path << ":" << (line) << ": " << msg;                                 \
        ::ns3::reader::Fail(readerErrorStream.str());                                              \
    } while (false)

#endif // WORKLOAD_READER_INTERNAL_H
