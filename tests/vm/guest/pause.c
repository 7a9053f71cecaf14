/* Copyright (c) 2026 numaops.colocation contributors
 * GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The pod sandbox ("pause") program of the test VM's sandbox image, ours: the VM reaches no registry, so
 * tests/vm/image.sh compiles this statically on the host (gcc -static) and packs it into an OCI archive that
 * the guest's containerd imports under the sandbox image name its CRI plugin uses. It does what a sandbox
 * container's process has to: hold the pod's namespaces while doing nothing, reap children when it is the
 * pod's PID 1, and exit at once on SIGINT or SIGTERM.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void stop(int sig) { (void)sig; _exit(0); }

static void reap(int sig)
{
    (void)sig;
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
}

int main(void)
{
    struct sigaction sa = {0};
    sa.sa_handler = stop;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sa.sa_handler = reap;
    sa.sa_flags = SA_NOCLDSTOP;
    sigaction(SIGCHLD, &sa, NULL);
    for (;;)
        pause();
    return 1;
}
