#!/usr/bin/env cwl-runner
# Scatter / gather: one count job and one locate job per input file, gathered
# into the table and the sites of one run over all the files, byte for byte.
#
#   cwltool scatter.cwl job.yml                                  # this machine
#   toil-cwl-runner --batchSystem slurm --jobStore ./js scatter.cwl job.yml
#
# The scatter runs over `inputs`, the parts a run is split into; every part
# job gets its files from its `part` (an input file) through `inputs`, the
# one place that turns a part into a job's options.
cwlVersion: v1.2
class: Workflow
label: probescan scatter / gather over input files
doc: |
  Counts and locates probes in every input file in its own job (a read set,
  a chromosome split into its own FASTA file beforehand), then gathers:
  `probescan merge` joins the count tables (totals summed, --by-file columns
  side by side, --by-record rows in input order) and the BED rows are
  concatenated in input order. Both are what one `probescan count` and one
  `probescan locate` over all the inputs, in the same order, write. The
  summary (MultiQC custom content) is made from the merged table, except for
  --by-record tables, which it does not read.
requirements:
  ScatterFeatureRequirement: {}
  StepInputExpressionRequirement: {}
  InlineJavascriptRequirement: {}
inputs:
  probes: File
  inputs:
    type: File[]
    doc: the sequence files, one job each; the gathered outputs keep this order
  by_file: boolean?
  by_record: boolean?
  mismatches: int?
  strand:
    type:
      - "null"
      - type: enum
        symbols: [both, forward]
  options:
    type: string[]?
    doc: further options of both count and locate (e.g. [--pam, NGG])
  threads:
    type: int
    default: 1
    doc: threads of each job
outputs:
  counts:
    type: File
    outputSource: gather_counts/table
  sites:
    type: File
    outputSource: gather_sites/joined
  summary:
    type: Directory?
    outputSource: report/report
steps:
  count:
    run: count.cwl
    scatter: part
    in:
      part: inputs
      inputs: {valueFrom: "$([inputs.part])"}
      probes: probes
      by_file: by_file
      by_record: by_record
      mismatches: mismatches
      strand: strand
      options: options
      threads: threads
    out: [table]
  locate:
    run: locate.cwl
    scatter: part
    in:
      part: inputs
      inputs: {valueFrom: "$([inputs.part])"}
      probes: probes
      mismatches: mismatches
      strand: strand
      options: options
      threads: threads
    out: [sites]
  gather_counts:
    run: merge.cwl
    in:
      tables: count/table
      probes: probes
      output_name: {default: counts.tsv}
    out: [table]
  gather_sites:
    run: concat.cwl
    in:
      parts: locate/sites
      output_name: {default: sites.bed}
    out: [joined]
  report:
    run: summary.cwl
    when: $(!inputs.by_record)
    in:
      tables: {source: gather_counts/table, valueFrom: "$([self])"}
      by_record: by_record
    out: [report]
