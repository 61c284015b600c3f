#include "cleanup.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ps_cleanup {
    pthread_mutex_t lock;
    char **path;
    size_t n, cap;
    sigset_t set;
};

static void *watch(void *arg)
{
    ps_cleanup_t *c = arg;
    int sig;
    while (sigwait(&c->set, &sig) != 0) {}
    pthread_mutex_lock(&c->lock);
    for (size_t i = 0; i < c->n; i++) unlink(c->path[i]);
    c->n = 0;
    /* The lock stays held: nothing may register a file from now on. */
    signal(sig, SIG_DFL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    pthread_sigmask(SIG_UNBLOCK, &one, NULL);
    raise(sig);
    _exit(128 + sig); /* not reached: the default action ends the process */
}

int ps_cleanup_start(ps_cleanup_t **out, ps_err_t *err)
{
    *out = NULL;
    ps_cleanup_t *c = calloc(1, sizeof *c);
    if (!c) return ps_fail(err, PS_E_NOMEM, "out of memory");
    if (pthread_mutex_init(&c->lock, NULL)) {
        free(c);
        return ps_fail(err, PS_E_INTERNAL, "cannot create a mutex");
    }
    sigemptyset(&c->set);
    sigaddset(&c->set, SIGINT);
    sigaddset(&c->set, SIGTERM);
    sigaddset(&c->set, SIGHUP);
    pthread_t tid;
    if (pthread_sigmask(SIG_BLOCK, &c->set, NULL) != 0 || pthread_create(&tid, NULL, watch, c) != 0) {
        pthread_sigmask(SIG_UNBLOCK, &c->set, NULL);
        pthread_mutex_destroy(&c->lock);
        free(c);
        return ps_fail(err, PS_E_INTERNAL, "cannot start the signal watcher");
    }
    pthread_detach(tid);
    *out = c;
    return PS_OK;
}

int ps_cleanup_add(ps_cleanup_t *c, const char *path, ps_err_t *err)
{
    if (!c) return PS_OK;
    char *copy = strdup(path);
    pthread_mutex_lock(&c->lock);
    if (copy && c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 4;
        char **p = realloc(c->path, cap * sizeof *p);
        if (p) {
            c->path = p;
            c->cap = cap;
        }
    }
    int ok = copy && c->n < c->cap;
    if (ok) c->path[c->n++] = copy;
    pthread_mutex_unlock(&c->lock);
    if (!ok) {
        free(copy);
        return ps_fail(err, PS_E_NOMEM, "out of memory");
    }
    return PS_OK;
}

void ps_cleanup_drop(ps_cleanup_t *c, const char *path)
{
    if (!c) return;
    pthread_mutex_lock(&c->lock);
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->path[i], path)) {
            free(c->path[i]);
            c->path[i] = c->path[--c->n];
            break;
        }
    pthread_mutex_unlock(&c->lock);
}
