process PROBESCAN_MERGE {
    tag "$meta.id"
    label 'process_single'

    conda "${moduleDir}/environment.yml"

    input:
    // Tables of chunks often share a file name: stage each in its own
    // numbered directory. The order of the list is the order of the merge
    // (the column order of a --by-file matrix).
    tuple val(meta), path(tables, stageAs: 'tables/?/*')

    output:
    tuple val(meta), path("*.tsv"), emit: table
    tuple val("${task.process}"), val('probescan'), eval('probescan --version'), topic: versions, emit: versions_probescan

    when:
    task.ext.when == null || task.ext.when

    script:
    def args   = task.ext.args ?: ''
    def prefix = task.ext.prefix ?: "${meta.id}"
    """
    probescan merge \\
        $args \\
        -o ${prefix}.tsv \\
        $tables
    """

    stub:
    def prefix = task.ext.prefix ?: "${meta.id}"
    """
    printf 'name\\tsequence\\tcount\\n' > ${prefix}.tsv
    """
}
