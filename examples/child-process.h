/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Run a piece of work in a forked child process and keep what it wrote on stderr: the
 * examples' trial construction of an ns-3 override (example-command-line.h) and, in
 * ai-training-sim, the flag checks of the --sweep runs and the trial builds of overrides.
 */
#ifndef AIT_CHILD_PROCESS_H
#define AIT_CHILD_PROCESS_H

#include <cstdio>
#include <fcntl.h>
#include <functional>
#include <iostream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace aitexample
{

/// What a child process started by RunInChild did.
struct ChildRun
{
    std::string failure; //!< "" if the child ran, else why not ("cannot create a pipe", ...)
    int status = 0;      //!< its wait status (WIFEXITED, WEXITSTATUS, WTERMSIG)
    std::string err;     //!< everything it wrote on stderr

    /// \return whether the child ran and exited with status 0
    bool ExitedCleanly() const
    {
        return failure.empty() && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
};

/**
 * \brief Run work in a forked child process whose stdout goes to /dev/null and whose stderr is
 *        kept, and wait for it. The child exits with status 0 when work returns (it may exit
 *        otherwise: an ns-3 fatal error, a flag error).
 * \param work what the child does
 * \return what the child did (failure set, and nothing run, if no pipe or child could be made)
 */
inline ChildRun
RunInChild(const std::function<void()>& work)
{
    ChildRun run;
    int fds[2];
    if (pipe(fds) != 0)
    {
        run.failure = "cannot create a pipe";
        return run;
    }
    std::cout.flush();
    std::cerr.flush();
    const pid_t pid = fork();
    if (pid < 0)
    {
        close(fds[0]);
        close(fds[1]);
        run.failure = "cannot fork";
        return run;
    }
    if (pid == 0)
    {
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        close(fds[1]);
        const int devNull = open("/dev/null", O_WRONLY);
        if (devNull < 0 || dup2(devNull, STDOUT_FILENO) < 0)
        {
            _exit(3);
        }
        work();
        std::fflush(nullptr);
        _exit(0);
    }
    close(fds[1]);
    char buf[4096];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof(buf))) > 0)
    {
        run.err.append(buf, n);
    }
    close(fds[0]);
    waitpid(pid, &run.status, 0);
    return run;
}

} // namespace aitexample

#endif // AIT_CHILD_PROCESS_H
