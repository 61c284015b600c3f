#!/usr/bin/env nextflow
/*
 * probescan example pipeline: scatter / count / gather. The same inputs,
 * steps and outputs as workflows/snakemake/example:
 *   LINK_INPUT              the inputs under their sample names (--by-file names columns after files)
 *   SPLIT                   FASTQ samples into read_chunks pieces, genomes one piece per record
 *   PROBESCAN_COUNT         every chunk, --by-file        -> counts/<sample>/<chunk>.tsv
 *   PROBESCAN_MERGE         chunks of a sample, summed    -> merged/<sample>.tsv
 *   PROBESCAN_MERGE_MATRIX  samples side by side          -> matrix.tsv
 *   PROBESCAN_COUNT_DIRECT  one run over the whole inputs -> direct.tsv
 *   CHECK                   matrix.tsv == direct.tsv      -> check.ok
 * Written to the nf-core conventions; see README.md.
 */
nextflow.enable.dsl = 2

include { PROBESCAN_COUNT                           } from './modules/probescan/count/main'
include { PROBESCAN_COUNT as PROBESCAN_COUNT_DIRECT } from './modules/probescan/count/main'
include { PROBESCAN_MERGE                           } from './modules/probescan/merge/main'
include { PROBESCAN_MERGE as PROBESCAN_MERGE_MATRIX } from './modules/probescan/merge/main'

process LINK_INPUT {
    tag "$meta.id"
    label 'process_single'

    input:
    tuple val(meta), path(seqs)

    output:
    tuple val(meta), path("${meta.id}.${meta.format}.gz")

    script:
    """
    ln -sf "\$(readlink -f ${seqs})" ${meta.id}.${meta.format}.gz
    """
}

process SPLIT {
    tag "$meta.id"
    label 'process_single'

    input:
    tuple val(meta), path(seqs)

    output:
    tuple val(meta), path("chunks/*/${meta.id}.${meta.format}")

    script:
    def kind = meta.format == 'fq' ? 'fastq' : 'fasta'
    """
    split.py --kind ${kind} --parts ${params.read_chunks} --sample ${meta.id} ${seqs} chunks
    """
}

process CHECK {
    label 'process_single'

    input:
    path matrix
    path direct

    output:
    path "check.ok"

    script:
    """
    if cmp -s ${matrix} ${direct}; then
        echo "matrix.tsv equals direct.tsv byte for byte" > check.ok
    else
        echo "check: the merged matrix differs from the direct run:" >&2
        diff ${matrix} ${direct} | head -n 20 >&2
        exit 1
    fi
    """
}

workflow {
    // Samples in matrix column order: reads first, then genomes, as listed in params.
    def samples = []
    params.reads.each   { id, name -> samples << [id: id, format: 'fq', name: name] }
    params.genomes.each { id, name -> samples << [id: id, format: 'fa', name: name] }
    def items = []
    samples.eachWithIndex { s, i ->
        items << [ [id: s.id, format: s.format, order: i], file("${params.data}/${s.name}", checkIfExists: true) ]
    }
    def ch_input = Channel.fromList(items)
    def probes = file(params.probes, checkIfExists: true)

    LINK_INPUT(ch_input)
    SPLIT(LINK_INPUT.out)

    // Scatter: one item per chunk; every chunk file is named <sample>.fa|.fq.
    def ch_chunks = SPLIT.out.flatMap { meta, chunks ->
        (chunks instanceof List ? chunks : [chunks]).collect { c ->
            [ meta + [id: "${meta.id}_${c.parent.name}", sample: meta.id, chunk: c.parent.name], c ]
        }
    }
    PROBESCAN_COUNT(ch_chunks, probes)

    // Gather 1: the chunk tables of one sample, summed into its column.
    def ch_by_sample = PROBESCAN_COUNT.out.counts
        .map { meta, table -> [ meta.sample, meta.order, table ] }
        .groupTuple()
        .map { sample, orders, tables -> [ [id: sample, order: orders[0]], tables.sort { it.name } ] }
    PROBESCAN_MERGE(ch_by_sample)

    // Gather 2: the samples side by side, in column order.
    def ch_matrix = PROBESCAN_MERGE.out.table
        .toSortedList { a, b -> a[0].order <=> b[0].order }
        .map { list -> [ [id: 'matrix'], list.collect { it[1] } ] }
    PROBESCAN_MERGE_MATRIX(ch_matrix)

    // The reference: one run over the unsplit inputs.
    def ch_direct = LINK_INPUT.out
        .toSortedList { a, b -> a[0].order <=> b[0].order }
        .map { list -> [ [id: 'direct'], list.collect { it[1] } ] }
    PROBESCAN_COUNT_DIRECT(ch_direct, probes)

    CHECK(PROBESCAN_MERGE_MATRIX.out.table.map { it[1] }, PROBESCAN_COUNT_DIRECT.out.counts.map { it[1] })

    // Versions arrive on the `versions` topic: [process, tool, version].
    channel.topic('versions')
        .unique()
        .map { process, tool, version -> "${process}:\n    ${tool}: ${version}\n" }
        .collectFile(name: 'versions.yml', storeDir: params.outdir, sort: true)
}
