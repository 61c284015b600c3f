#!/usr/bin/env cwl-runner
# probescan summary: MultiQC custom content from count tables (run
# `multiqc DIR` on the directory it writes).
cwlVersion: v1.2
class: CommandLineTool
label: probescan summary
baseCommand: [probescan, summary]
arguments:
  - {prefix: -o, valueFrom: $(inputs.outdir), position: 0}
hints:
  SoftwareRequirement:
    packages:
      probescan: {}
inputs:
  tables:
    type: File[]
    doc: totals tables (a sample each, named after the file) and --by-file matrices
    inputBinding: {position: 100}
  stats:
    type:
      - "null"
      - type: array
        items: File
        inputBinding: {prefix: --stats}
    doc: --stats files of the count runs (adds records and bases)
    inputBinding: {position: 1}
  outdir:
    type: string
    default: summary
outputs:
  report:
    type: Directory
    outputBinding: {glob: $(inputs.outdir)}
