process PROBESCAN_LOCATE {
    tag "$meta.id"
    label 'process_medium'
    // GPU jobs: nextflow.config gives this label `accelerator 1`. Patterns
    // and mismatches go to the GPU where one is usable, else to the CPU.
    label 'process_gpu'

    conda "${moduleDir}/environment.yml"

    input:
    tuple val(meta), path(reads)
    path probes

    output:
    tuple val(meta), path("*.bed.gz")    , emit: bed
    tuple val(meta), path("*.stats.json"), emit: stats
    tuple val("${task.process}"), val('probescan'), eval('probescan --version'), topic: versions, emit: versions_probescan

    when:
    task.ext.when == null || task.ext.when

    script:
    def args   = task.ext.args ?: ''
    def prefix = task.ext.prefix ?: "${meta.id}"
    """
    probescan locate \\
        $args \\
        -t $task.cpus \\
        -p $probes \\
        --stats ${prefix}.stats.json \\
        -o ${prefix}.bed.gz \\
        $reads
    """

    stub:
    def prefix = task.ext.prefix ?: "${meta.id}"
    """
    echo -n | gzip > ${prefix}.bed.gz
    echo '{}' > ${prefix}.stats.json
    """
}
