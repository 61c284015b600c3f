process PROBESCAN_COUNT {
    tag "$meta.id"
    label 'process_medium'
    // GPU jobs: nextflow.config gives this label `accelerator 1`. Without a
    // usable GPU, probescan's default --engine auto counts on the CPU.
    label 'process_gpu'

    conda "${moduleDir}/environment.yml"

    input:
    tuple val(meta), path(reads)
    path probes

    output:
    tuple val(meta), path("*.tsv")       , emit: counts
    tuple val(meta), path("*.stats.json"), emit: stats
    tuple val("${task.process}"), val('probescan'), eval('probescan --version'), topic: versions, emit: versions_probescan

    when:
    task.ext.when == null || task.ext.when

    script:
    def args   = task.ext.args ?: ''
    def prefix = task.ext.prefix ?: "${meta.id}"
    """
    probescan count \\
        $args \\
        -t $task.cpus \\
        -p $probes \\
        --stats ${prefix}.stats.json \\
        -o ${prefix}.tsv \\
        $reads
    """

    stub:
    def prefix = task.ext.prefix ?: "${meta.id}"
    """
    printf 'name\\tsequence\\tcount\\n' > ${prefix}.tsv
    echo '{}' > ${prefix}.stats.json
    """
}
