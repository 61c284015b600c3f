/* test_outfile.c - writing the file the user named (outfile.h): regular
 * files replaced whole, symlinks kept, devices and pipes written directly
 * and never replaced, no temporary file left behind; statistics as JSON,
 * valid whatever bytes a file name holds, in the layout line readers
 * expect. */
#include <check.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <jansson.h>

#include "outfile.h"
#include "testutil.h"

static void write_text(const char *path, const char *text)
{
    ps_output_t *o = NULL;
    ps_err_t err;
    ck_assert_msg(ps_output_open(&o, path, NULL, &err) == PS_OK, "%s", err.msg);
    fputs(text, ps_output_stream(o));
    ck_assert_msg(ps_output_commit(o, &err) == PS_OK, "%s", err.msg);
}

/* A symlink stays a link; the file it points at gets the table. */
START_TEST(test_symlink_kept)
{
    char *dir = tu_mkdtemp();
    char *target = tu_path(dir, "real.tsv"), *link = tu_path(dir, "link.tsv");
    tu_write_file(target, "old\n", 4);
    ck_assert_int_eq(symlink("real.tsv", link), 0);
    write_text(link, "new\n");
    struct stat st;
    ck_assert_int_eq(lstat(link, &st), 0);
    ck_assert_msg(S_ISLNK(st.st_mode), "the symlink was replaced by a file");
    tu_assert_file(target, "new\n");
    ck_assert_int_eq(tu_dir_entries(dir), 2);
    free(target);
    free(link);
    tu_rmtree(dir);
}
END_TEST

typedef struct {
    const char *path;
    char got[64];
} reader_t;

static void *read_fifo(void *arg)
{
    reader_t *r = arg;
    FILE *f = fopen(r->path, "r");
    if (f) {
        size_t n = fread(r->got, 1, sizeof r->got - 1, f);
        r->got[n] = 0;
        fclose(f);
    }
    return NULL;
}

/* A FIFO is written into, not replaced: its reader gets the table. */
START_TEST(test_fifo_written)
{
    char *dir = tu_mkdtemp();
    char *fifo = tu_path(dir, "pipe");
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    reader_t r = {fifo, ""};
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, read_fifo, &r), 0);
    write_text(fifo, "through the pipe\n");
    pthread_join(t, NULL);
    ck_assert_str_eq(r.got, "through the pipe\n");
    struct stat st;
    ck_assert_int_eq(lstat(fifo, &st), 0);
    ck_assert_msg(S_ISFIFO(st.st_mode), "the FIFO was replaced");
    ck_assert_int_eq(tu_dir_entries(dir), 1);
    free(fifo);
    tu_rmtree(dir);
}
END_TEST

/* A character device is written to, never replaced: a private null device
 * where this runs as root (making one needs it), else /dev/null itself
 * (which a non-root process could not replace anyway). */
START_TEST(test_device_written)
{
    char *dir = tu_mkdtemp();
    char *dev = tu_path(dir, "null");
    const char *path = dev;
    if (mknod(dev, S_IFCHR | 0666, makedev(1, 3)) != 0) {
        fprintf(stderr, "outfile: not root: the device case writes /dev/null, which it could not replace\n");
        path = "/dev/null";
    }
    write_text(path, "gone\n");
    struct stat st;
    ck_assert_int_eq(lstat(path, &st), 0);
    ck_assert_msg(S_ISCHR(st.st_mode), "%s was replaced by a regular file", path);
    ck_assert_int_eq(tu_dir_entries(dir), path == dev ? 1 : 0);
    free(dev);
    tu_rmtree(dir);
}
END_TEST

/* /dev/fd/N (what `-o >(cmd)` passes) is the descriptor, not a file to
 * replace. */
START_TEST(test_fd_path_written)
{
    char *dir = tu_mkdtemp();
    char *file = tu_path(dir, "via_fd.txt");
    int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    char fdpath[32];
    snprintf(fdpath, sizeof fdpath, "/dev/fd/%d", fd);
    write_text(fdpath, "by descriptor\n");
    close(fd);
    tu_assert_file(file, "by descriptor\n");
    ck_assert_int_eq(tu_dir_entries(dir), 1);
    free(file);
    tu_rmtree(dir);
}
END_TEST

/* A name ending in .gz or .bgz gets BGZF (gzip-readable), not plain text
 * under a .gz name. */
START_TEST(test_gz_name_compressed)
{
    char *dir = tu_mkdtemp();
    const char *names[] = {"t.tsv.gz", "t.tsv.BGZ"};
    for (int i = 0; i < 2; i++) {
        char *path = tu_path(dir, names[i]);
        write_text(path, "name\tsequence\tcount\np1\tACG\t3\n");
        FILE *f = fopen(path, "rb");
        ck_assert_ptr_nonnull(f);
        unsigned char magic[4] = {0};
        ck_assert_int_eq(fread(magic, 1, 4, f), 4);
        fclose(f);
        ck_assert_msg(magic[0] == 0x1f && magic[1] == 0x8b && (magic[3] & 4), "%s is not BGZF", names[i]);
        tu_assert_file(path, "name\tsequence\tcount\np1\tACG\t3\n");
        free(path);
    }
    ck_assert_int_eq(tu_dir_entries(dir), 2);
    tu_rmtree(dir);
}
END_TEST

/* Replacing a file keeps its permissions: a private table stays private. */
START_TEST(test_mode_kept)
{
    char *dir = tu_mkdtemp();
    char *path = tu_path(dir, "private.tsv");
    tu_write_file(path, "old\n", 4);
    ck_assert_int_eq(chmod(path, 0600), 0);
    write_text(path, "new\n");
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_uint_eq(st.st_mode & 0777, 0600);
    free(path);
    tu_rmtree(dir);
}
END_TEST

/* An aborted write leaves the old file and nothing else. */
START_TEST(test_abort_leaves_nothing)
{
    char *dir = tu_mkdtemp();
    char *path = tu_path(dir, "t.tsv");
    tu_write_file(path, "keep\n", 5);
    ps_output_t *o = NULL;
    ps_err_t err;
    ck_assert_int_eq(ps_output_open(&o, path, NULL, &err), PS_OK);
    fputs("half", ps_output_stream(o));
    ps_output_abort(o);
    tu_assert_file(path, "keep\n");
    ck_assert_int_eq(tu_dir_entries(dir), 1);
    free(path);
    tu_rmtree(dir);
}
END_TEST

/* The string jansson holds for s, as bytes. */
static void assert_text(const char *s, const char *want)
{
    json_t *j = ps_json_text(s);
    ck_assert_ptr_nonnull(j);
    ck_assert_uint_eq(json_string_length(j), strlen(want));
    ck_assert_msg(!memcmp(json_string_value(j), want, strlen(want)), "'%s' became '%s', not '%s'", s,
                  json_string_value(j), want);
    json_decref(j);
}

/* Well-formed UTF-8 stays; each byte that begins no well-formed sequence
 * (a stray continuation, an overlong form, a surrogate, beyond U+10FFFF,
 * a sequence cut short) becomes U+FFFD, and what follows is read afresh. */
START_TEST(test_json_text_utf8)
{
#define R "\xef\xbf\xbd"
    assert_text("plain \"q\" \\ \t.fa", "plain \"q\" \\ \t.fa");
    assert_text("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\xa7\xac \xf4\x8f\xbf\xbf", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\xa7\xac \xf4\x8f\xbf\xbf");
    assert_text("x\xffy", "x" R "y");
    assert_text("\x80\xbf", R R);
    assert_text("\xc0\xaf", R R);                 /* overlong '/' */
    assert_text("\xe0\x80\xaf", R R R);           /* overlong, three bytes */
    assert_text("\xed\xa0\x80", R R R);           /* a surrogate */
    assert_text("\xf4\x90\x80\x80", R R R R);     /* beyond U+10FFFF */
    assert_text("a\xe2\x82", "a" R R);            /* cut short at the end */
    assert_text("\xe2\x82" "A\xc3\xa9", R R "A\xc3\xa9");
    assert_text("\xf5\xfe", R R);
    assert_text("", "");
#undef R
}
END_TEST

/* Saved whole, in the layout line readers use, and valid JSON that
 * reads back to what was saved; a name with any bytes included. */
START_TEST(test_json_save)
{
    char *dir = tu_mkdtemp();
    char *path = tu_path(dir, "s.json");
    ps_err_t err;
    json_t *j = json_pack("{s:s, s:[{s:o, s:I}, {s:o, s:I}], s:[], s:{s:b, s:n}, s:o, s:o}", "version", "1.0",
                          "inputs", "path", ps_json_text("a\xff\t\".fa"), "records", (json_int_t)3, "path",
                          ps_json_text("b.fa"), "records", (json_int_t)9007199254740993LL, "none", "flags", "gpu", 0,
                          "kernel", "seconds", ps_json_seconds(0.25), "total", ps_json_seconds(1.0000004));
    ck_assert_ptr_nonnull(j);
    ck_assert_msg(ps_json_save(path, j, NULL, &err) == PS_OK, "%s", err.msg);
    tu_assert_file(path, "{\n"
                         "  \"version\": \"1.0\",\n"
                         "  \"inputs\": [\n"
                         "    {\"path\": \"a\xef\xbf\xbd\\t\\\".fa\", \"records\": 3},\n"
                         "    {\"path\": \"b.fa\", \"records\": 9007199254740993}\n"
                         "  ],\n"
                         "  \"none\": [],\n"
                         "  \"flags\": {\"gpu\": false, \"kernel\": null},\n"
                         "  \"seconds\": 0.25,\n"
                         "  \"total\": 1.0\n"
                         "}\n");
    json_error_t je;
    json_t *back = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    ck_assert_msg(back != NULL, "%s: not JSON: %s", path, je.text);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(back, "inputs"), 0), "path")),
                     "a\xef\xbf\xbd\t\".fa");
    json_decref(back);
    ck_assert_int_eq(tu_dir_entries(dir), 1);
    /* NULL (a failed json_pack) is out of memory; the old file stays. */
    ck_assert_int_eq(ps_json_save(path, NULL, NULL, &err), PS_E_NOMEM);
    ck_assert_int_eq(tu_dir_entries(dir), 1);
    free(path);
    tu_rmtree(dir);
}
END_TEST

/* A write error is an error: /dev/full, written directly. */
START_TEST(test_json_save_full)
{
    if (access("/dev/full", W_OK) != 0) {
        printf("test_json_save_full: skipped (no writable /dev/full here)\n");
        return;
    }
    ps_err_t err;
    json_t *j = json_pack("{s:s}", "a", "b");
    ck_assert_int_eq(ps_json_save("/dev/full", j, NULL, &err), PS_E_IO);
    ck_assert_msg(strstr(err.msg, "/dev/full"), "%s", err.msg);
}
END_TEST

Suite *suite_outfile(void)
{
    Suite *s = suite_create("outfile");
    TCase *tc = tcase_create("outfile");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_symlink_kept);
    tcase_add_test(tc, test_fifo_written);
    tcase_add_test(tc, test_device_written);
    tcase_add_test(tc, test_fd_path_written);
    tcase_add_test(tc, test_abort_leaves_nothing);
    tcase_add_test(tc, test_gz_name_compressed);
    tcase_add_test(tc, test_mode_kept);
    tcase_add_test(tc, test_json_text_utf8);
    tcase_add_test(tc, test_json_save);
    tcase_add_test(tc, test_json_save_full);
    suite_add_tcase(s, tc);
    return s;
}
