#!/usr/bin/env cwl-runner
# probescan locate: every site of every probe in the inputs given (see
# `probescan locate --help` and `man probescan` for every option).
cwlVersion: v1.2
class: CommandLineTool
label: probescan locate
doc: |
  Report every site of every probe as BED6 rows (or tsv, pff, gff, psa,
  cas-offinder), ordered by input, record, start, then probe order; the BED
  rows of inputs located one by one, concatenated in input order, are those
  of one run over all of them.
baseCommand: [probescan, locate]
arguments:
  - {prefix: -o, valueFrom: $(inputs.output_name), position: 0}
  - {valueFrom: --quiet, position: 0}
hints:
  SoftwareRequirement:
    packages:
      probescan: {}
  ResourceRequirement:
    coresMin: $(inputs.threads)
inputs:
  probes:
    type: File
    inputBinding: {prefix: -p, position: 1}
  inputs:
    type: File[]
    doc: sequence files, reported in this order
    inputBinding: {position: 100}
  mismatches:
    type: int?
    inputBinding: {prefix: -m, position: 1}
  strand:
    type:
      - "null"
      - type: enum
        symbols: [both, forward]
    inputBinding: {prefix: --strand, position: 1}
  format:
    type:
      - "null"
      - type: enum
        symbols: [bed, tsv, pff, gff, psa, cas-offinder]
    doc: output format (default bed)
    inputBinding: {prefix: --format, position: 1}
  options:
    type: string[]?
    doc: further probescan locate options, e.g. [--pam, NGG]
    inputBinding: {position: 2}
  threads:
    type: int
    default: 1
    inputBinding: {prefix: -t, position: 1}
  output_name:
    type: string
    default: sites.bed
outputs:
  sites:
    type: File
    outputBinding: {glob: $(inputs.output_name)}
